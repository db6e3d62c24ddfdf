"""Pick the draft source per page: the text layer where a page has one, OCR elsewhere."""

from __future__ import annotations

from hsd_cli.datatypes import PageImage, Region
from hsd_cli.drafts import overlay
from hsd_cli.drafts.base import DraftSource
from hsd_cli.drafts.overlay import unreadable_share
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.drafts.text_layer import TextLayerSource

MODES = ("auto", "text", "ocr")
MIN_TEXT_CHARS = 100  # below this a text layer is a stamp or a few labels, not the page
# Above this share of unreadable characters (U+FFFD for a glyph without Unicode, controls,
# private-use and unassigned code points) the layer is broken (fonts without a Unicode map)
# and OCR reads the page better. Symbol-font bullets stay far below it: at most 1.1% of a
# page on the dev corpus. Lines of a valid layer also win on pages OCR reads (drafts.overlay).
MAX_UNREADABLE = overlay.MAX_UNREADABLE


def has_text_layer(page: PageImage) -> bool:
    """True when the page carries enough readable visible text to draft from."""
    text = "".join(s.text for s in page.text_spans)
    return len(text) >= MIN_TEXT_CHARS and unreadable_share(text) <= MAX_UNREADABLE


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
