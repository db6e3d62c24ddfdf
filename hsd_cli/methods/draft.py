"""`--method draft`: the draft pipeline's own Markdown, no target model."""

from __future__ import annotations

from dataclasses import asdict

from hsd_cli.datatypes import PageResult, PageStatus, PreparedPage, RegionKind
from hsd_cli.drafts.markup import MARKDOWN, DraftStyle, page_markdown
from hsd_cli.metrics import full_time
from hsd_cli.pages.damage import has_ink
from hsd_cli.report.blocks import draft_blocks

# An empty page is one of these: no region with text, and none of a kind that holds no text
# (a photo's figure). A draft source that found nothing on a page with ink lost its text.
_TEXTLESS = (RegionKind.FIGURE,)
NOTHING_FOUND = "no text found on a page with ink: its text may be drawn in a way the drafts cannot read"


class DraftConverter:
    """Verify stage that writes the drafts as the page; useful as a fast baseline."""

    method = "draft"
    uses_drafts = True

    def __init__(self, draft_source: str = "auto", style: DraftStyle = MARKDOWN) -> None:
        self.draft_source = draft_source
        self.style = style

    def options_key(self) -> dict[str, object]:
        style = asdict(self.style)
        return {"method": self.method, "draft_source": self.draft_source, "style": style}

    def convert(self, prepared: PreparedPage) -> PageResult:
        """The page's drafts as Markdown; t_total covers drafting only (t_render is apart)."""
        page = prepared.page
        lost = prepared.draft_note or _nothing_found(prepared)
        return PageResult(
            source=str(page.source),
            page=page.number,
            status=PageStatus.DEGRADED if lost else PageStatus.OK,
            error=lost,
            markdown=page_markdown(list(prepared.regions), self.style),
            method=self.method,
            draft_source=prepared.draft_source,
            t_render=prepared.t_render,
            t_draft=prepared.t_draft,
            t_total=full_time(prepared.t_draft, 0.0, 0.0),  # no prefill, no decode
            draft_error=prepared.draft_error,
            width=page.image.width,
            height=page.image.height,
            dpi=page.dpi,
            blocks=draft_blocks(list(prepared.regions)),
        )


def _nothing_found(prepared: PreparedPage) -> str:
    """Why the page's draft is empty though the page is not ("" when it found something)."""
    found = any(r.text.strip() or r.cells or r.kind in _TEXTLESS for r in prepared.regions)
    if found or prepared.draft_error or not has_ink(prepared.page.image):
        return ""  # a crashed draft says so itself (draft_error)
    return NOTHING_FOUND
