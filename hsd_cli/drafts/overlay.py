"""On a page read by OCR, the text layer wins wherever it is valid.

Posters and slides carry a few real text lines beside text drawn as pictures; too little for
the text-layer source, so OCR reads the page. Where a text-layer line is valid (the test of
drafts.validity, judged per line, so a line in a broken font stays with OCR), it replaces the
OCR lines it covers: its text is the document's own (spaces, diacritics, scripts the
recognizer lacks).
"""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.validity import MAX_INVALID, invalid_share
from hsd_cli.pages import geometry as geo

MIN_COVER = 0.5  # an OCR line sharing this much of its (or the layer line's) area is the same text


def valid_lines(spans: tuple[TextSpan, ...], scale: float = 1.0) -> list[TextSpan]:
    """Valid text-layer lines, boxes scaled to the image OCR reads."""
    return [
        replace(s, bbox=tuple(v * scale for v in s.bbox), text=s.text.replace("\ufffd", "").strip())
        for s in spans
        if s.text.strip() and invalid_share(s.text) <= MAX_INVALID
    ]


def prefer_text_layer(ocr: list[TextSpan], layer: list[TextSpan]) -> list[TextSpan]:
    """OCR lines that no valid layer line covers, plus the layer lines."""
    if not layer:
        return ocr
    kept = [o for o in ocr if not any(_same_place(o.bbox, s.bbox) for s in layer)]
    return kept + [s for s in layer if s.text]


def _same_place(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return geo.intersection(a, b) >= MIN_COVER * max(1e-6, min(geo.area(a), geo.area(b)))
