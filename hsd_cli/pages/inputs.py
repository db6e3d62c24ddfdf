"""Input discovery, sharding and output-path mapping.

Layout: a file input `dir/x.pdf` writes `out/x.md` and `out/x/page-0001.json`; a folder
input mirrors its layout below the folder: `in/sub/x.pdf` -> `out/sub/x.md` and
`out/sub/x/page-0001.json`. Every document gets a `key` (its output path without suffix).

Keys come from each input alone, so adding or removing other inputs never hands one
document's outputs to another: the key is the input's own relative path (its stem for a file
given directly or on stdin), made safe part by part (`_safe_part`). When several documents of
one run want the same key (case-insensitively: macOS and Windows file systems ignore case),
none keeps it: each gets `-<8 hex of sha256(its resolved path)>`, a suffix that depends on that
document alone. A key can only ever stay put, gain that suffix, or lose it; it never moves to
another source. (The resume index also checks the source's identity, see report/store.py.)

Safety: every part of a key is non-empty, never starts with "." (so never "." or ".."), holds
no "/" and no control or undecodable character, is at most _MAX_PART bytes of UTF-8, and does
not end in ".json" or ".md" (which would shadow a report or a Markdown file); so
`out / key` always stays below `out`, whatever the input's name.

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
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

# Page images a folder walk takes (PIL reads them all: pages/image_files.IMAGE_FORMATS); JPEG 2000 is
# how large scan archives store their pages.
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".jfif", ".tif", ".tiff", ".webp", ".bmp", ".gif", ".jp2", ".j2k", ".jpx")
IMAGE_EXTENSIONS += (".pbm", ".pgm", ".ppm", ".pnm")
EXTENSIONS = (".pdf", *IMAGE_EXTENSIONS)
STDIN = "-"
# NAME_MAX is 255 bytes on common file systems; the longest name made from a part is
# mkstemp's ".<part>.md.XXXXXXXX.tmp" (part + 17 bytes), so 200 leaves space for it.
_MAX_PART = 200
_RESERVED_ENDINGS = (".json", ".md")  # a folder with such a name would shadow a report file


@dataclass(frozen=True, slots=True)
class InputDoc:
    """One document to convert and where its outputs go; `error` is set when it cannot be found."""

    path: Path
    key: str  # output path below out/ without suffix, "/"-separated: "sub/x", "x-1a2b3c4d"
    error: str = ""

    @property
    def name(self) -> str:
        """The path as given, printable on one line (for messages and reports)."""
        return printable(str(self.path))

    def markdown_path(self, out_dir: Path) -> Path:
        return out_dir / f"{self.key}.md"

    def report_dir(self, out_dir: Path) -> Path:
        return out_dir / self.key

    def json_path(self, out_dir: Path) -> Path:
        """out/<key>.json: the document's blocks (--format json)."""
        return out_dir / f"{self.key}.json"


def printable(text: str) -> str:
    """One printable line: undecodable bytes and control characters become \\xNN escapes."""
    decoded = os.fsencode(text).decode("utf-8", "backslashreplace")
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in decoded)


def discover(
    inputs: Sequence[Path | str],
    glob: str | None = None,
    stdin: TextIO | None = None,
    exclude: Path | None = None,
) -> list[InputDoc]:
    """Expand files, folders and `-` (paths from stdin) into documents, in the order given (a
    folder's files sorted within it): a user who names b.pdf before a.pdf wants b first."""
    wanted: list[tuple[Path, str, str]] = []  # (path, desired key, error)
    seen: set[str] = set()
    for item in _expand_stdin(inputs, stdin):
        for path, key, error in _expand(Path(item), glob, exclude):
            real = os.path.realpath(path)  # never raises on a symlink loop, unlike Path.resolve
            if real in seen:
                continue  # the same file named twice (or a file and its folder)
            seen.add(real)
            wanted.append((path, key, error))
    counts = Counter(key.casefold() for _, key, _ in wanted)
    return [
        InputDoc(path, _own_suffix(key, path) if counts[key.casefold()] > 1 else key, error)
        for path, key, error in wanted
    ]


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


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:8]


def _own_suffix(key: str, path: Path) -> str:
    """A contested key made unique by a suffix that depends on this source alone."""
    return f"{key}-{_digest(os.fsencode(os.path.realpath(path)))}"


def _safe_part(part: str) -> str:
    """One path component made safe (see the module docstring); altered ones get a hash."""
    raw = os.fsencode(part)  # undecodable bytes come back as they were on disk
    text = raw.decode("utf-8", "replace").replace("\ufffd", "_")
    text = "".join(c if c.isprintable() else "_" for c in text)
    text = "_" + text[1:] if text.startswith(".") else text or "_"
    too_long = len(text.encode("utf-8")) > _MAX_PART
    if text == part and not too_long and not text.casefold().endswith(_RESERVED_ENDINGS):
        return text
    if too_long:  # cut on a character boundary, leaving space for the suffix
        text = text.encode("utf-8")[: _MAX_PART - 9].decode("utf-8", "ignore")
    return f"{text}-{_digest(raw)}"


def _key_of(rel: str) -> str:
    """The key of a "/"-separated relative path: suffix dropped, every part made safe."""
    *head, name = [p for p in rel.split("/") if p]
    stem = Path(name).stem or name
    return "/".join(_safe_part(p) for p in (*head, stem))


def _expand_stdin(inputs: Sequence[Path | str], stdin: TextIO | None) -> list[str]:
    """Replace `-` by the paths listed on stdin (read once)."""
    out: list[str] = []
    lines: list[str] | None = None
    for item in inputs:
        if str(item) != STDIN:
            out.append(str(item))
        elif lines is None:
            lines = _read_paths(stdin)
            out.extend(lines)
    return out


def _read_paths(stdin: TextIO | None) -> list[str]:
    """Non-blank lines (or NUL-separated names, as `find -print0` writes), as bytes on disk.

    The raw bytes are decoded with os.fsdecode, so a name that is not valid UTF-8 survives
    (as surrogate escapes) instead of failing the whole batch.
    """
    if stdin is None:
        return []
    buffer = getattr(stdin, "buffer", None)
    data = buffer.read() if buffer is not None else os.fsencode(stdin.read())
    if b"\0" in data:
        return [os.fsdecode(name) for name in data.split(b"\0") if name]
    return [os.fsdecode(ln.strip()) for ln in data.splitlines() if ln.strip()]


def _expand(path: Path, glob: str | None, exclude: Path | None) -> list[tuple[Path, str, str]]:
    if path.is_dir():
        files = list(_walk(path, glob, exclude))
        if not files:
            kinds = f"files matching {glob!r}" if glob else "PDF or image files"
            return [(path, _key_of(path.name or "input"), f"folder has no {kinds}")]
        return [(f, _key_of(f.relative_to(path).as_posix()), "") for f in files]
    return [(path, _key_of(path.name or "input"), _missing(path))]


def _missing(path: Path) -> str:
    """Why a path that is not a folder cannot be a document ("" when it is a file)."""
    try:
        os.stat(path)
    except OSError as e:  # ENOENT, ELOOP (a symlink loop), EACCES, ENAMETOOLONG ...
        return (e.strerror or "cannot be read").lower()
    return ""


def _walk(root: Path, glob: str | None, exclude: Path | None) -> Iterable[Path]:
    """Files below root in sorted order; hidden files and folders (".git") are skipped."""
    skip = os.path.realpath(exclude) if exclude is not None else None
    for dirpath, dirnames, filenames in os.walk(root):  # followlinks=False: no cycles
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and os.path.realpath(here / d) != skip)
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
