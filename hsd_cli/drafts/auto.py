"""Pick the draft source per page: the text layer where a page has one, OCR elsewhere."""

from __future__ import annotations

from hsd_cli.datatypes import PageImage, Region
from hsd_cli.drafts.base import DraftSource
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.drafts.text_layer import TextLayerSource
from hsd_cli.drafts.validity import MAX_INVALID, invalid_share

MODES = ("auto", "text", "ocr")
MIN_TEXT_CHARS = 100  # below this a text layer is a stamp or a few labels, not the page
# A layer failing the validity test (drafts.validity: unreadable characters, words garbled by
# fonts without a Unicode map) is broken and OCR reads the page better; its valid lines still
# win on the page OCR reads (drafts.overlay).


def has_text_layer(page: PageImage) -> bool:
    """True when the page carries enough valid visible text to draft from."""
    text = "\n".join(s.text for s in page.text_spans)  # lines apart: words do not run together
    return len(text) - text.count("\n") >= MIN_TEXT_CHARS and invalid_share(text) <= MAX_INVALID


class AutoSource:
    """`mode` "auto" chooses per page; "text" and "ocr" force one source."""

    def __init__(self, mode: str = "auto", text: DraftSource | None = None, ocr: DraftSource | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"draft source must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.text = text or TextLayerSource()
        self.ocr = ocr or RapidOcrSource()  # loads its models on first use only

    @property
    def name(self) -> str:
        return self.mode

    def select(self, page: PageImage) -> DraftSource:
        if self.mode == "text" or (self.mode == "auto" and has_text_layer(page)):
            return self.text
        return self.ocr

    def regions(self, page: PageImage) -> list[Region]:
        return self.select(page).regions(page)
