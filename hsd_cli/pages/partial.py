"""Analyses that only sharpen a page's drafts (its formulas, its figures): each runs on its own,
and one that fails, on an odd page or by a bug, costs itself alone and says so in a note the
page carries (PageImage.unread), never the page."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from hsd_cli.pages.image_files import short

T = TypeVar("T")


def partly(what: str, step: Callable[[], T], without: T) -> tuple[T, str]:
    """(`step()`, "") or, where it fails, (`without`, a note naming `what` was not read and why)."""
    try:
        return step(), ""
    except Exception as e:  # noqa: BLE001 - the drafts do without it (the note tells the page)
        return without, f"{what} not read ({type(e).__name__}: {short(e)}); drafted as plain text"


def notes(*notes: str) -> str:
    """The notes that say something, in one line."""
    return "; ".join(n for n in notes if n)
