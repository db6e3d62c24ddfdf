"""The one interface the runner sees: a prepared page goes in, a PageResult comes out."""

from __future__ import annotations

from typing import Protocol

from hsd_cli.datatypes import PageResult, PreparedPage


class PageConverter(Protocol):
    method: str
    uses_drafts: bool  # the prepare stage makes drafts only for converters that use them

    def options_key(self) -> dict[str, object]:
        """Settings that change the output; a page report is reused only if they match."""
        ...

    def convert(self, prepared: PreparedPage) -> PageResult:
        """The verify stage: one prepared page -> its result."""
        ...
