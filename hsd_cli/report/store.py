"""Atomic file writes, the per-document lock, and the resume index.

A write goes to a hidden temp file in the target's folder and is moved into place with
`os.replace`, so a reader (or a rerun after a kill) sees the old file or the new one, never a
torn one. mkstemp creates its file 0600; it is chmod'ed to what a plain open() would give
(0666 minus the umask) before the rename, so other users and services can read the results.

Concurrency: a run holds `out/<key>/.lock` (flock(2), released by the kernel when the process
dies, even by kill -9) while it works on a document, and only then removes that document's
temp files; so two runs on one folder take turns per document instead of deleting each
other's temp files mid-write.

A page is finished when `page-NNNN.json` parses, has status ok, truncated or degraded, and was made with
the same options: the converter's `options_key()`, the run's output-changing settings and the
source's identity (`source_identity`: resolved path, size, sha256 of the content).
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import InputError, OutputError
from hsd_cli.report.json import normalize_options, page_from_json

# A degraded page is finished: a rerun reads the same damaged input (--force redoes it).
FINISHED = (PageStatus.OK, PageStatus.TRUNCATED, PageStatus.DEGRADED)
_TMP_SUFFIX = ".tmp"
_TMP_RANDOM = "?" * 8  # mkstemp puts 8 random characters between prefix and suffix
_OWN_FILES = ("page-*.json", "summary.json")  # what a document writes in its report folder
# "[" + newline never occurs inside a JSON string (newlines are escaped there).
_NUMBER_LIST = re.compile(r"\[\n[\d\s,.eE+-]*\]")


def page_report_path(report_dir: Path, page: int) -> Path:
    """out/<key>/page-NNNN.json for 1-based page `page`."""
    return report_dir / f"page-{page:04d}.json"


def run_summary_path(out_dir: Path, shard: tuple[int, int] = (1, 1)) -> Path:
    """out/run-summary.json; shards may share one folder, so each keeps its own."""
    i, n = shard
    return out_dir / ("run-summary.json" if n == 1 else f"run-summary-{i}-of-{n}.json")


def write_text(path: Path, text: str) -> None:
    """Write text atomically; OutputError (one line) when the folder cannot be written."""
    if _has_surrogates(text):  # a non-UTF-8 file name echoed in the text: its bytes as \xNN
        text = _escape_surrogates(text)
    write_bytes(path, text.encode("utf-8"))


def write_bytes(path: Path, data: bytes) -> None:
    """Write bytes atomically; OutputError (one line) when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP_SUFFIX, dir=path.parent)
    except OSError as e:
        raise OutputError(f"{path.parent}: cannot write: {_reason(e)}") from e
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())  # survive a power loss, not just a killed process
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{path}: cannot write: {_reason(e)}") from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Indented JSON, with lists of numbers (accepted_hist) kept on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    if not text.isascii() and _has_surrogates(text):  # keep the JSON valid: escape them all
        text = json.dumps(data, indent=2, ensure_ascii=True)
    text = _NUMBER_LIST.sub(lambda m: "[" + " ".join(m[0][1:-1].split()) + "]", text)
    write_text(path, text + "\n")


def ensure_writable(out_dir: Path) -> None:
    """Create out_dir and prove it takes a file (an unnamed one: shards may probe at once)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as e:
        raise OutputError(f"{out_dir}: cannot write: {_reason(e)}") from e


@contextmanager
def document_lock(report_dir: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold out/<key>/.lock for one document; waits (after calling on_wait) while another run has it."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(report_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as e:
        raise OutputError(f"{report_dir}: cannot write: {_reason(e)}") from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the flock


def remove_stale_temps(report_dir: Path, *siblings: Path) -> None:
    """Delete the temp files a killed run left for this document (hold its lock first).

    Only this document's own names: the report folder also holds the Markdown of documents
    below it (`out/x/y.md` for `in/x/y.pdf`), whose temps another run may be writing now.
    """
    own = [report_dir / f".{name}.{_TMP_RANDOM}{_TMP_SUFFIX}" for name in _OWN_FILES]
    own.append(report_dir / "figures" / f".page-*.png.{_TMP_RANDOM}{_TMP_SUFFIX}")
    for path in siblings:  # out/<key>.md, out/<key>.json
        name = glob.escape(path.name)
        own.append(path.parent / f".{name}.{_TMP_RANDOM}{_TMP_SUFFIX}")
    for pattern in own:
        head = glob.escape(str(pattern.parent))
        for tmp in glob.glob(os.path.join(head, pattern.name)):
            Path(tmp).unlink(missing_ok=True)


def source_identity(path: Path) -> dict[str, object]:
    """What resume compares to know a source is the one the reports were made from."""
    from hsd_cli.pages.inputs import printable

    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            digest = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as e:
        raise InputError(f"cannot read the file: {_reason(e)}") from None
    return {"path": printable(os.path.realpath(path)), "size": size, "sha256": digest}


def finished_pages(report_dir: Path, pages: list[int], options: dict[str, object]) -> dict[int, PageResult]:
    """Resume index: the pages (1-based) among `pages` whose reports can be reused."""
    wanted = normalize_options(options)
    done: dict[int, PageResult] = {}
    for page in pages:
        path = page_report_path(report_dir, page)
        result = _read_finished(path, wanted)
        if result is not None and result.page == page:
            done[page] = result
    return done


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _escape_surrogates(text: str) -> str:
    try:  # os.fsdecode's escapes back to their bytes, shown as \xNN
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # other lone surrogates: \udNNN
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _reason(e: OSError) -> str:
    return (e.strerror or str(e) or type(e).__name__).splitlines()[0]


def _umask() -> int:
    """The process umask, read without changing it where /proc allows (threads may be running)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # the only portable way to read it is to set it
    os.umask(mask)
    return mask


def _read_finished(path: Path, wanted: dict[str, Any]) -> PageResult | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = page_from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if result.status not in FINISHED or data.get("options") != wanted:
        return None
    return result
