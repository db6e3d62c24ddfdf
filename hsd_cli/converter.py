"""The one interface the runner sees: a page goes in, a PageResult comes out."""

from __future__ import annotations

from typing import Protocol

from hsd_cli.datatypes import PageImage, PageResult


class PageConverter(Protocol):
    method: str

    def options_key(self) -> dict[str, object]:
        """Settings that change the output; a page report is reused only if they match."""
        ...

    def convert(self, page: PageImage) -> PageResult:
        """Convert one page; t_render is filled in by the caller."""
        ...
