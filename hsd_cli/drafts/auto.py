"""Pick the draft source per page: with `auto`, the first registered source that can read it
(config.DRAFT_SOURCES: the text layer where a page has one, OCR elsewhere)."""

from __future__ import annotations

from functools import cache

from hsd_cli.config import AUTO_SOURCE, DRAFT_SOURCES, draft_source_choices, load
from hsd_cli.datatypes import PageImage, Region
from hsd_cli.drafts.base import DraftSource


@cache
def source_classes() -> dict[str, type[DraftSource]]:
    """--draft-source name -> source class, in `auto` order; imported on first use."""
    return {row.name: load(row) for row in DRAFT_SOURCES}


def source_class(name: str) -> type[DraftSource] | None:
    """The class of the source that page reports call `name` (None: no such source, or none)."""
    return next((c for c in source_classes().values() if c.name == name), None)


class AutoSource:
    """`mode` "auto" chooses per page; a source's name forces it. `given` stands a source in for
    the registered one of that name (tests; --workers' OCR threads)."""

    def __init__(
        self, mode: str = AUTO_SOURCE, threads: int | None = None, device: str | None = None, **given: DraftSource
    ) -> None:
        if mode not in draft_source_choices():
            raise ValueError(f"draft source must be one of {draft_source_choices()}, got {mode!r}")
        self.mode = mode
        # The OCR engines load their models on first use only: building every source is cheap.
        classes = source_classes().items()
        self.sources = {name: given.get(name) or cls(threads=threads, device=device) for name, cls in classes}

    @property
    def name(self) -> str:
        return self.mode

    def select(self, page: PageImage) -> DraftSource:
        if self.mode != AUTO_SOURCE:
            return self.sources[self.mode]
        last = list(self.sources.values())[-1]  # reads any page
        return next((s for s in self.sources.values() if s.reads(page)), last)

    def regions(self, page: PageImage) -> list[Region]:
        return self.select(page).regions(page)
