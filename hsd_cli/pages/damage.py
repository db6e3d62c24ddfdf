"""What of a page the reader may not get: a PDF MuPDF had to repair, content it could not read,
ink on a page whose draft found nothing.

MuPDF repairs what it can and says so only in its warnings: a file cut short ("cannot find
startxref", "repairing PDF document") still opens, and a page whose content stream was cut
off renders blank ("cannot load content stream part 1/1") or stops mid-page. Each cause is
named in one line; the page is then `degraded`, not `ok` (pipeline/verify.py).
"""

from __future__ import annotations

import re

import pymupdf
from PIL import Image

# Warnings that mean part of the page was not drawn or read (not those about fonts without a
# cmap or an outline: the page itself is whole).
_LOST = re.compile(
    r"content stream|syntax error|page may not be correct|not a stream|premature end|unexpected end|truncated"
    r"|cannot (load|draw|decode|render) (image|xobject|object|page)",
    re.I,
)
INK_LEVEL = 80  # a pixel this much darker than the page's background is ink
MIN_INK = 0.001  # share of a page's pixels: a blank scan's specks stay below, one line of text is above
_THUMB = 400  # pixels on the long side: enough to see a line of text


def take_warnings() -> str:
    """MuPDF's warnings since the last call (newline-separated); the record starts afresh."""
    return pymupdf.TOOLS.mupdf_warnings(reset=True)


def page_damage(repaired: bool, opened: str, drawn: str) -> str:
    """Why the page may be incomplete ("" when it is whole): `repaired` the file was, `opened`
    and `drawn` the warnings of opening it and of reading the page."""
    lost = [w.strip() for w in drawn.splitlines() if _LOST.search(w)]
    if lost:
        telling = next((w for w in lost if w.lower().startswith("cannot")), lost[0])
        return f"damaged page: MuPDF could not read all of it ({_cut(telling)}); content may be missing"
    if repaired:
        first = next((w.strip() for w in opened.splitlines() if w.strip()), "broken cross-reference table")
        return f"damaged PDF: MuPDF repaired it ({_cut(first)}); the page may be incomplete"
    return ""


def has_ink(image: Image.Image) -> bool:
    """Whether anything is printed on the page: pixels well darker than its background."""
    grey = image.convert("L")
    grey.thumbnail((_THUMB, _THUMB))
    counts = grey.histogram()
    total = sum(counts)
    half, seen, background = total / 2, 0, 255
    for level, n in enumerate(counts):  # the median level: the background of any page with margins
        seen += n
        if seen >= half:
            background = level
            break
    dark = sum(counts[: max(0, background - INK_LEVEL)])
    return dark > MIN_INK * total


def _cut(warning: str) -> str:
    return " ".join(warning.split())[:100]
