"""The verify stage of one page, one definition for every engine: a prepared page (or the
exception its preparation raised) goes through the converter and comes out as a PageResult.

A page that raises becomes a failed PageResult; what the user should read about it comes back
as lines (`Verified.lines`), which the engine prints where the user sees them (the local runner
at once, the Ray driver when the result arrives from a worker).
"""

from __future__ import annotations

import contextlib
import re
import traceback
from dataclasses import dataclass, replace
from pathlib import Path

from hsd_cli.datatypes import PageResult, PageStatus, PreparedPage
from hsd_cli.errors import HsdError, ModelNotFoundError
from hsd_cli.methods.base import PageConverter
from hsd_cli.targets.runtime.memory import is_oom, oom_line, release


@dataclass(frozen=True, slots=True)
class Line:
    """A message about a page: level "error" or "warning"; `trace` is a traceback (--debug)."""

    level: str
    text: str
    trace: str = ""


@dataclass(frozen=True, slots=True)
class Verified:
    """One page's result and the lines to show for it, in order."""

    result: PageResult
    lines: tuple[Line, ...] = ()


def verify_page(
    converter: PageConverter,
    name: str,
    path: Path,
    page: int,
    item: PreparedPage | BaseException,
    in_page: contextlib.AbstractContextManager | None = None,
) -> Verified:
    """Verify one prepared page; a failure is a failed PageResult (BaseExceptions pass through).

    `in_page` wraps the converter call alone (the local runner marks a page as in flight there).
    """
    lines: list[Line] = []
    t_render = item.t_render if isinstance(item, PreparedPage) else 0.0
    try:
        if isinstance(item, BaseException):
            raise item
        if item.draft_error:
            lines.append(
                Line(
                    "warning",
                    f"{name}: page {page}: draft pipeline failed ({item.draft_error}); converting without drafts",
                )
            )
        with in_page or contextlib.nullcontext():
            result = converter.convert(item)
    except ModelNotFoundError:
        raise  # the model loads on the first page (methods/choose.py): failing to is the run's error
    except Exception as e:  # per-page isolation: record, report, go on
        text = cause(e)
        if is_oom(e):
            release()
            text = oom_line(e)
        trace = "".join(traceback.format_exception(e)).rstrip()
        lines.append(Line("error", page_line(name, page, text), trace))
        failed = PageResult(str(path), page, PageStatus.FAILED, method=converter.method, error=text, t_render=t_render)
        return Verified(failed, tuple(lines))
    if result.status == PageStatus.FAILED:  # the converter's own failure value
        lines.append(Line("error", page_line(name, page, result.error or "failed")))
    if result.fault:
        lines.append(Line("warning", page_line(name, page, result.fault)))
    return Verified(replace(result, source=str(path), page=page, t_render=t_render), tuple(lines))


def cause(e: BaseException) -> str:
    """One line naming the cause: our own messages as they are, others with their type."""
    text = str(e) if isinstance(e, HsdError) or not str(e) else f"{type(e).__name__}: {e}"
    return " ".join(text.split()) or type(e).__name__


def page_line(name: str, page: int, text: str) -> str:
    # Render errors already start with "page N ..." or "page N: ..."; don't say it twice.
    where = "" if re.match(rf"page {page}\b", text) else f"page {page}: "
    return f"{name}: {where}{text}"
