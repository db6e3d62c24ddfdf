"""The top and bottom bands of a page, where running headers, footers and page numbers live.

The PDF reader collects the lines in them (pdftext.band_lines); the draft sources tell running
lines and page numbers there (drafts/running.py, drafts/furniture.py).
"""

from __future__ import annotations

from dataclasses import dataclass

BAND = 0.12  # share of the page height, top and bottom, where running lines and numbers live


@dataclass(frozen=True, slots=True)
class BandLine:
    """A text line of a page, its box as shares of the page height (0 top, 1 bottom)."""

    top: float
    bottom: float
    text: str
