"""`--method draft`: the draft pipeline's own Markdown, no target model."""

from __future__ import annotations

import time
from dataclasses import asdict

from hsd_cli.datatypes import PageImage, PageResult, PageStatus
from hsd_cli.drafts.auto import AutoSource
from hsd_cli.drafts.markup import MARKDOWN, DraftStyle, page_markdown


class DraftConverter:
    """PageConverter that writes the drafts as the page; useful as a fast baseline."""

    method = "draft"

    def __init__(self, draft_source: str = "auto", style: DraftStyle = MARKDOWN) -> None:
        self.sources = AutoSource(draft_source)
        self.style = style

    def options_key(self) -> dict[str, object]:
        style = asdict(self.style)
        return {"method": self.method, "draft_source": self.sources.mode, "style": style}

    def convert(self, page: PageImage) -> PageResult:
        """Draft the page; t_total covers drafting only (the caller adds t_render)."""
        start = time.perf_counter()
        source = self.sources.select(page)
        markdown = page_markdown(source.regions(page), self.style)
        t_draft = time.perf_counter() - start
        return PageResult(
            source=str(page.source),
            page=page.number,
            status=PageStatus.OK,
            markdown=markdown,
            method=self.method,
            draft_source=source.name,
            t_draft=t_draft,
            t_total=t_draft,
        )
