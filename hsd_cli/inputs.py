"""Input discovery, sharding and output-path mapping.

Layout: a file input `dir/x.pdf` writes `out/x.md` and `out/x/page-0001.json`; a folder
input mirrors its layout below the folder: `in/sub/x.pdf` -> `out/sub/x.md` and
`out/sub/x/page-0001.json`. Every document gets a `key` (its output path without suffix).

Collisions: keys are compared case-insensitively (macOS and Windows file systems are). When
several documents want the same key, the one whose source path sorts first keeps it and the
others get `-2`, `-3`, ... (`x`, `x-2`), skipping keys already taken, so the mapping depends
only on the set of inputs, never on the order they were given in.

Sharding: document `key` goes to shard `1 + sha1(key) mod N`. Hashing the relative key (not
an index into the sorted list) keeps a document in the same shard on every machine even
when the machines see slightly different file sets, and across reruns that add files, so
resume never moves finished documents to another shard; the price is an uneven split for
small batches.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

EXTENSIONS = (".pdf", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp")
STDIN = "-"


@dataclass(frozen=True, slots=True)
class InputDoc:
    """One document to convert and where its outputs go; `error` is set when it cannot be found."""

    path: Path
    key: str  # output path below out/ without suffix, "/"-separated: "sub/x", "x-2"
    error: str = ""

    def markdown_path(self, out_dir: Path) -> Path:
        return out_dir / f"{self.key}.md"

    def report_dir(self, out_dir: Path) -> Path:
        return out_dir / self.key


def discover(
    inputs: Sequence[Path | str],
    glob: str | None = None,
    stdin: TextIO | None = None,
    exclude: Path | None = None,
) -> list[InputDoc]:
    """Expand files, folders and `-` (paths from stdin) into documents sorted by key."""
    wanted: list[tuple[Path, str, str]] = []  # (path, desired key, error)
    seen: set[Path] = set()
    for item in _expand_stdin(inputs, stdin):
        for path, key, error in _expand(Path(item), glob, exclude):
            real = path.resolve()
            if real in seen:
                continue  # the same file named twice (or a file and its folder)
            seen.add(real)
            wanted.append((path, key, error))
    keys = _unique_keys([(path.as_posix(), key) for path, key, _ in wanted])
    docs = [InputDoc(path, k, error) for (path, _, error), k in zip(wanted, keys)]
    return sorted(docs, key=lambda d: d.key)


def shard(docs: Sequence[InputDoc], i: int, n: int) -> list[InputDoc]:
    """Documents of shard i of n (1-based); see the module docstring for the rule."""
    if not 1 <= i <= n:
        raise ValueError(f"shard must be i/N with 1 <= i <= N, got {i}/{n}")
    return [d for d in docs if _shard_of(d.key, n) == i]


def parse_shard(text: str) -> tuple[int, int]:
    """Parse `i/N` into (i, N); ValueError names the expected form."""
    try:
        i, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"shard must look like i/N (e.g. 2/8), got {text!r}") from None
    if not 1 <= i <= n:
        raise ValueError(f"shard must be i/N with 1 <= i <= N, got {text}")
    return i, n


def _shard_of(key: str, n: int) -> int:
    digest = hashlib.sha1(key.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % n


def _expand_stdin(inputs: Sequence[Path | str], stdin: TextIO | None) -> list[str]:
    """Replace `-` by the non-blank lines of stdin (read once)."""
    out: list[str] = []
    lines: list[str] | None = None
    for item in inputs:
        if str(item) != STDIN:
            out.append(str(item))
            continue
        if lines is None:
            text = stdin.read() if stdin is not None else ""
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
            out.extend(lines)
    return out


def _expand(path: Path, glob: str | None, exclude: Path | None) -> list[tuple[Path, str, str]]:
    if path.is_dir():
        files = list(_walk(path, glob, exclude))
        if not files:
            known = "/".join(e[1:] for e in EXTENSIONS)
            kinds = f"files matching {glob!r}" if glob else f"{known} files"
            return [(path, path.name or "input", f"folder has no {kinds}")]
        return [(f, _strip_suffix(f.relative_to(path).as_posix()), "") for f in files]
    error = "" if path.is_file() else "no such file or directory"
    return [(path, path.stem or path.name, error)]


def _walk(root: Path, glob: str | None, exclude: Path | None) -> Iterable[Path]:
    """Files below root in sorted order; hidden files and folders (".git") are skipped."""
    skip = exclude.resolve() if exclude is not None else None
    for dirpath, dirnames, filenames in os.walk(root):  # followlinks=False: no cycles
        here = Path(dirpath)
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and (here / d).resolve() != skip
        )
        for name in sorted(filenames):
            rel = (here / name).relative_to(root).as_posix()
            if not name.startswith(".") and _matches(rel, name, glob):
                yield here / name


def _matches(rel: str, name: str, glob: str | None) -> bool:
    """Case-insensitive: known extensions, or `glob` against the name (the path if it has /)."""
    if glob is None:
        return name.lower().endswith(EXTENSIONS)
    pattern = glob.lower().removeprefix("**/")  # fnmatch's * already crosses "/"
    target = rel if "/" in pattern else name
    return fnmatch.fnmatchcase(target.lower(), pattern)


def _strip_suffix(rel: str) -> str:
    head, _, name = rel.rpartition("/")
    stem = Path(name).stem or name
    return f"{head}/{stem}" if head else stem


def _unique_keys(items: Sequence[tuple[str, str]]) -> list[str]:
    """Give each (source, key) a distinct key; the first source in sorted order keeps it."""
    order = sorted(range(len(items)), key=lambda j: (items[j][1].casefold(), items[j][0]))
    wanted = {key.casefold() for _, key in items}
    taken: set[str] = set()
    result = [""] * len(items)
    for j in order:
        key = items[j][1]
        k, n = key, 1
        while k.casefold() in taken or (n > 1 and k.casefold() in wanted):
            n += 1
            k = f"{key}-{n}"
        taken.add(k.casefold())
        result[j] = k
    return result
