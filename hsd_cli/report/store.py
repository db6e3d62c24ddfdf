"""Atomic file writes and the resume index.

A write goes to a hidden temp file in the target's folder and is moved into place with
`os.replace`, so a reader (or a rerun after a kill) sees the old file or the new one, never a
torn one. A page is finished when `page-NNNN.json` parses, has status ok or truncated, and was
made with the current converter's `options_key()`.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import OutputError
from hsd_cli.report.json import normalize_options, page_from_json

FINISHED = (PageStatus.OK, PageStatus.TRUNCATED)
_TMP_SUFFIX = ".tmp"
# "[" + newline never occurs inside a JSON string (newlines are escaped there).
_NUMBER_LIST = re.compile(r"\[\n[\d\s,.eE+-]*\]")


def page_report_path(report_dir: Path, page: int) -> Path:
    """out/<key>/page-NNNN.json for 1-based page `page`."""
    return report_dir / f"page-{page:04d}.json"


def write_text(path: Path, text: str) -> None:
    """Write text atomically; OutputError (one line) when the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=_TMP_SUFFIX, dir=path.parent)
    except OSError as e:
        raise OutputError(f"{path.parent}: cannot write: {e.strerror or e}") from e
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())  # survive a power loss, not just a killed process
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{path}: cannot write: {e.strerror or e}") from e
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Indented JSON, with lists of numbers (accepted_hist) kept on one line."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    text = _NUMBER_LIST.sub(lambda m: "[" + " ".join(m[0][1:-1].split()) + "]", text)
    write_text(path, text + "\n")


def ensure_writable(out_dir: Path) -> None:
    """Create out_dir and prove it takes a file (an unnamed one: shards may probe at once)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out_dir):
            pass
    except OSError as e:
        raise OutputError(f"{out_dir}: cannot write: {e.strerror or e}") from e


def remove_stale_temps(folder: Path) -> None:
    """Delete temp files a killed run left behind."""
    if folder.is_dir():
        for tmp in folder.glob(f".*{_TMP_SUFFIX}"):
            tmp.unlink(missing_ok=True)


def finished_pages(
    report_dir: Path, pages: list[int], options: dict[str, object]
) -> dict[int, PageResult]:
    """Resume index: the pages (1-based) among `pages` whose reports can be reused."""
    wanted = normalize_options(options)
    done: dict[int, PageResult] = {}
    for page in pages:
        path = page_report_path(report_dir, page)
        result = _read_finished(path, wanted)
        if result is not None and result.page == page:
            done[page] = result
    return done


def _read_finished(path: Path, wanted: dict[str, Any]) -> PageResult | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        result = page_from_json(data)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if result.status not in FINISHED or data.get("options") != wanted:
        return None
    return result
