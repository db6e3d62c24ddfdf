"""On a page read by OCR, the text layer wins wherever it is valid.

Posters and slides carry a few real text lines beside text drawn as pictures; too little for
the text-layer source, so OCR reads the page. Where a text-layer line is readable (at most
`auto.MAX_UNREADABLE` of its characters without a Unicode letter, judged per line, so a line
in a broken font stays with OCR), it replaces the OCR lines it covers: its text is the
document's own (spaces, diacritics, scripts the recognizer lacks).
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts import geometry as geo

MAX_UNREADABLE = 0.2  # as drafts.auto: a line above this share of unreadable characters is broken
MIN_COVER = 0.5  # an OCR line sharing this much of its (or the layer line's) area is the same text
_UNREADABLE = frozenset(("Cc", "Co", "Cn", "Cs"))


def unreadable_share(text: str) -> float:
    """Share of the non-space characters that name no letter a reader could see."""
    chars = [c for c in text if not c.isspace()]
    bad = sum(c == "\ufffd" or unicodedata.category(c) in _UNREADABLE for c in chars)
    return bad / len(chars) if chars else 0.0


def valid_lines(spans: tuple[TextSpan, ...], scale: float = 1.0) -> list[TextSpan]:
    """Readable text-layer lines, boxes scaled to the image OCR reads."""
    return [
        replace(s, bbox=tuple(v * scale for v in s.bbox), text=s.text.replace("\ufffd", "").strip())
        for s in spans
        if s.text.strip() and unreadable_share(s.text) <= MAX_UNREADABLE
    ]


def prefer_text_layer(ocr: list[TextSpan], layer: list[TextSpan]) -> list[TextSpan]:
    """OCR lines that no valid layer line covers, plus the layer lines."""
    if not layer:
        return ocr
    kept = [o for o in ocr if not any(_same_place(o.bbox, s.bbox) for s in layer)]
    return kept + [s for s in layer if s.text]


def _same_place(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return geo.intersection(a, b) >= MIN_COVER * max(1e-6, min(geo.area(a), geo.area(b)))
