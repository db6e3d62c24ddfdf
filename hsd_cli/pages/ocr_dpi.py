"""The resolution a PDF page is rendered at for OCR, from its physical size and its text height.

Rule (sizes in PDF points, 72 to the inch; `base` is the run's --dpi):

1. start from `base`, the resolution the page image is rendered at for everything else;
2. raise it until the page's body text is TEXT_PX pixels high (`72 * TEXT_PX / text_pt`), when
   the page's text layer says how high its text is (the median font size of its lines; a
   garbled layer still places its glyphs at their true size);
3. raise it until the long side reaches MIN_LONG_SIDE pixels: the detector does not enlarge
   small images, and enlarging a small render afterwards blurs what a sharper render shows;
4. cap it where the long side would pass MAX_LONG_SIDE pixels (a poster or a drawing sheet),
   and at MAX_DPI.

Examples: a letter page with 10-pt text stays at 144 dpi; a 3 x 4 inch page with 6-pt text
gets 320 dpi (its long side reaches 1280 px); an A0 sheet (2384 x 3370 pt) gets 88 dpi.
"""

from __future__ import annotations

from statistics import median

from hsd_cli.datatypes import TextSpan

TEXT_PX = 20  # a body line's height that OCR reads well: 10-pt text at the default 144 dpi
MIN_LONG_SIDE = 1280  # the text detector's own input size (RapidOcrSource)
MAX_LONG_SIDE = 4096  # beyond this the recognizer's crops only cost time
MAX_DPI = 600  # RunConfig's upper bound for --dpi


def ocr_dpi(width_pt: float, height_pt: float, text_pt: float | None, base: int) -> int:
    """Render resolution for OCR of a page `width_pt` x `height_pt` whose text is `text_pt` high."""
    long_pt = max(width_pt, height_pt, 1.0)
    dpi = float(base)
    if text_pt and text_pt > 0:
        dpi = max(dpi, 72 * TEXT_PX / text_pt)
    dpi = max(dpi, 72 * MIN_LONG_SIDE / long_pt)
    return int(round(min(dpi, 72 * MAX_LONG_SIDE / long_pt, MAX_DPI)))


def text_height(spans: tuple[TextSpan, ...]) -> float | None:
    """Median font size (points) of the lines, weighted by their length; None without sizes."""
    sizes = [s.size for s in spans for _ in range(len(s.text)) if s.size > 0]
    return median(sizes) if sizes else None
