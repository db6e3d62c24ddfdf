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
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from hsd_cli.datatypes import PageResult, PageStatus, PreparedPage
from hsd_cli.errors import HsdError, ModelNotFoundError
from hsd_cli.methods.base import PageConverter
from hsd_cli.report.progress import Line
from hsd_cli.targets.runtime.memory import is_oom, oom_line, release


@dataclass(frozen=True, slots=True)
class Verified:
    """One page's result and the lines to show for it, in order."""

    result: PageResult
    lines: tuple[Line, ...] = ()
    image: object = None  # the rendered page (PIL), for figure crops; engines that ship results drop it


PageItem = tuple[str, Path, int, "PreparedPage | BaseException"]  # (document name, path, page number, prepared)


def verify_page(
    converter: PageConverter,
    name: str,
    path: Path,
    page: int,
    item: PreparedPage | BaseException,
    in_page: contextlib.AbstractContextManager | None = None,
) -> Verified:
    """Verify one prepared page; a failure is a failed PageResult (BaseExceptions pass through)."""
    return next(verify_stream(converter, [(name, path, page, item)], in_page))


def verify_stream(
    converter: PageConverter,
    pages: Iterable[PageItem],
    in_page: contextlib.AbstractContextManager | None = None,
) -> Iterator[Verified]:
    """Verify pages in order; a converter that batches decodes several at once (`convert_many`).

    `pages` is read lazily, as places in the batch free up, so a consumer that stops reading it
    stops new pages from starting. `in_page` wraps the converter's work for each result (the
    local runner marks pages in flight there).
    """
    meta: dict[int, PageItem] = {}

    def items() -> Iterator[tuple[int, PreparedPage | BaseException]]:
        for i, entry in enumerate(pages):
            meta[i] = entry
            yield i, entry[3]

    many = getattr(converter, "convert_many", None)
    outcomes = iter(many(items()) if many else _one_by_one(converter, items()))
    while True:
        with in_page or contextlib.nullcontext():
            got = next(outcomes, None)
        if got is None:
            return
        key, outcome = got
        yield _verified(converter, *meta.pop(key), outcome)


def _one_by_one(converter: PageConverter, items: Iterable[tuple[int, object]]) -> Iterator[tuple[int, object]]:
    """convert_many for converters that take one page at a time (the draft pipeline)."""
    for key, item in items:
        if isinstance(item, BaseException):
            yield key, item
            continue
        try:
            yield key, converter.convert(item)
        except ModelNotFoundError:
            raise
        except Exception as e:
            yield key, e


def _verified(converter: PageConverter, name: str, path: Path, page: int, item: object, outcome: object) -> Verified:
    """The page's result and its lines, from what converting it gave (a result or an exception)."""
    lines: list[Line] = []
    t_render = item.t_render if isinstance(item, PreparedPage) else 0.0
    # A page that started before its drafts learns that they failed from its result.
    draft_error = getattr(item, "draft_error", "") or getattr(outcome, "draft_error", "")
    if draft_error:
        text = f"{name}: page {page}: draft pipeline failed ({draft_error}); converting without drafts"
        lines.append(Line("warning", text))
    if isinstance(outcome, ModelNotFoundError):
        raise outcome  # the model loads on the first page (driver/choose.py): failing to is the run's error
    if isinstance(outcome, BaseException):
        if not isinstance(outcome, Exception):
            raise outcome
        text = cause(outcome)
        if is_oom(outcome):
            release()
            text = oom_line(outcome)
        trace = "".join(traceback.format_exception(outcome)).rstrip()
        lines.append(Line("error", page_line(name, page, text), trace))
        failed = PageResult(str(path), page, PageStatus.FAILED, method=converter.method, error=text, t_render=t_render)
        return Verified(failed, tuple(lines), _image(item))
    damage = item.damage if isinstance(item, PreparedPage) else ""
    result = degraded(outcome, damage)
    if result.status == PageStatus.FAILED:  # the converter's own failure value
        lines.append(Line("error", page_line(name, page, result.error or "failed")))
    elif result.status == PageStatus.DEGRADED or damage:  # a truncated page's damage too
        lines.append(Line("warning", page_line(name, page, damage or result.error)))
    if result.fault:
        lines.append(Line("warning", page_line(name, page, result.fault)))
    return Verified(replace(result, source=str(path), page=page, t_render=t_render), tuple(lines), _image(item))


def degraded(result: PageResult, damage: str) -> PageResult:
    """The result of a page whose input was damaged (PreparedPage.damage): `degraded`, the damage
    its cause (before a converter's own, as an empty draft: the damage explains it). A failed or
    truncated page keeps its status: it says already that the page needs a look."""
    if not damage or result.status not in (PageStatus.OK, PageStatus.DEGRADED):
        return result
    return replace(result, status=PageStatus.DEGRADED, error=damage)


def _image(item: object) -> object:
    return item.page.image if isinstance(item, PreparedPage) else None


def cause(e: BaseException) -> str:
    """One line naming the cause: our own messages as they are, others with their type."""
    text = str(e) if isinstance(e, HsdError) or not str(e) else f"{type(e).__name__}: {e}"
    return " ".join(text.split()) or type(e).__name__


def page_line(name: str, page: int, text: str) -> str:
    # Render errors already start with "page N ..." or "page N: ..."; don't say it twice.
    where = "" if re.match(rf"page {page}\b", text) else f"page {page}: "
    return f"{name}: {where}{text}"
