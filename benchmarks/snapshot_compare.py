"""`snapshot_outputs.py compare A B`: two snapshots of `hsd convert`'s outputs, file by file.

JSON is compared canonically, after dropping VOLATILE_KEYS and every `t_*` key, with each
snapshot's own roots in strings written as placeholders; everything else byte for byte. One line
per differing file (where it first differs), a count; exit 1 if any.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

VOLATILE_KEYS = frozenset({"tokens_per_s", "sr_decode", "sr_e2e"})  # plus every key "t_*"
PRIVATE = "_"  # top-level entries of a snapshot starting with this are not compared


def replace_roots(text: str, roots: dict[str, str | None]) -> str:
    """`text` with the snapshot's root paths written as <name>."""
    for name, root in sorted(((n, r) for n, r in roots.items() if r), key=lambda nr: -len(nr[1])):  # longest first
        text = text.replace(root, f"<{name}>")
    return text


def scrub(value, roots: dict[str, str], ignore: frozenset[str]):
    """A JSON value without volatile keys, its strings with the snapshot's roots as <name>."""
    if isinstance(value, dict):
        return {k: scrub(v, roots, ignore) for k, v in value.items() if not (k in ignore or k.startswith("t_"))}
    if isinstance(value, list):
        return [scrub(v, roots, ignore) for v in value]
    if isinstance(value, str):
        return replace_roots(value, roots)
    return value


def first_difference(a, b, path: str = "") -> str:
    """The path of the first place where two JSON values differ, with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: {'missing in A' if key not in a else 'missing in B'}"
            if a[key] != b[key]:
                return first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
    if isinstance(a, str) and isinstance(b, str):
        return f"{path}: {string_difference(a, b)}"
    return f"{path or '<root>'}: {short(a)} vs {short(b)}"


def string_difference(a: str, b: str, context: int = 30) -> str:
    """Where two strings first differ, with a little of each around that place."""
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    start = max(0, i - context)
    return f"char {i}: {a[start : i + context]!r} vs {b[start : i + context]!r}"


def short(value, width: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


def first_line_difference(a: bytes, b: bytes) -> str:
    """Line number and both lines of the first difference between two files."""
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb, strict=False), 1):
        if x != y:
            return f"line {i}, {string_difference(x.decode('utf-8', 'replace'), y.decode('utf-8', 'replace'))}"
    return f"{len(la)} vs {len(lb)} lines"


def normalize(value):
    """Forgive two intended changes (issue 19): documents in the order given, title text without '#'."""
    if isinstance(value, dict):
        out = {k: normalize(v) for k, v in value.items()}
        if out.get("kind") == "title" and isinstance(out.get("text"), str):
            out["text"] = re.sub(r"^#+ ", "", out["text"])
        if isinstance(out.get("documents"), list):
            out["documents"] = sorted(out["documents"], key=lambda d: str(d.get("source")))
        return out
    return [normalize(v) for v in value] if isinstance(value, list) else value


def compare_json(a: Path, b: Path, roots: tuple[dict, dict], ignore: frozenset[str], norm: bool) -> str | None:
    try:
        va, vb = json.loads(a.read_bytes()), json.loads(b.read_bytes())
    except ValueError as error:
        return None if a.read_bytes() == b.read_bytes() else f"unparsable JSON ({error})"
    va, vb = scrub(va, roots[0], ignore), scrub(vb, roots[1], ignore)
    if norm:
        va, vb = normalize(va), normalize(vb)
    return None if va == vb else first_difference(va, vb)


def compare_file(a: Path, b: Path, roots: tuple[dict, dict], ignore: frozenset[str], norm: bool) -> str | None:
    """None when the two files match, else what differs first."""
    if a.suffix == ".json":
        return compare_json(a, b, roots, ignore, norm)
    ba, bb = a.read_bytes(), b.read_bytes()
    if ba == bb:
        return None
    if a.suffix in (".md", ".txt", ".html"):
        return first_line_difference(ba, bb)
    return f"bytes differ ({len(ba)} vs {len(bb)} bytes)"


def snapshot_files(root: Path, cases: list[str] | None) -> set[str]:
    """Relative paths of the compared files (of `cases` only, when given)."""
    rels = (p.relative_to(root) for p in root.rglob("*") if p.is_file())
    wanted = (lambda top: top in cases or top == "cases.json") if cases else (lambda top: True)
    return {r.as_posix() for r in rels if not r.parts[0].startswith(PRIVATE) and wanted(r.parts[0])}


def run_record(snapshot: Path) -> dict:
    """The snapshot's cases.json ({} when missing or unreadable)."""
    try:
        return json.loads((snapshot / "cases.json").read_text())
    except (OSError, ValueError):
        return {}


def cmd_compare(opts: argparse.Namespace) -> int:
    a, b = Path(opts.a), Path(opts.b)
    ignore = VOLATILE_KEYS | frozenset(opts.ignore_key)
    records = (run_record(a), run_record(b))
    roots = tuple(
        r.get("meta", {}).get("roots", {"out": str(s.resolve())}) for r, s in zip(records, (a, b), strict=True)
    )
    fa, fb = snapshot_files(a, opts.cases), snapshot_files(b, opts.cases)
    others = {k for r in records for k in r.get("cases", {}) if opts.cases and k not in opts.cases}
    differing = 0
    for rel in sorted(fa | fb):
        if rel not in fa or rel not in fb:
            problem = f"only in {'B' if rel in fb else 'A'}"
        else:  # cases.json: the run's own times and paths ("meta") and unselected cases never count
            extra = {"meta", *others} if rel == "cases.json" else set()
            problem = compare_file(a / rel, b / rel, roots, ignore | extra, opts.normalize)
        if problem:
            differing += 1
            print(f"{rel}: {problem}")
    if records[0].get("meta", {}).get("costs") != records[1].get("meta", {}).get("costs"):
        print("note: the snapshots ran with different cost curves (--cost-cache); hsd/auto may differ")
    print(f"{differing} differing file(s) of {len(fa | fb)}")
    return 1 if differing else 0
