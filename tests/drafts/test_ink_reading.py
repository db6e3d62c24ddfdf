"""Text in no layer on a text-layer page: OCR's regions in its place when they are prose the
layer lacks; charts' labels and transcribed scans left alone."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from hsd_cli.datatypes import PageImage, Region, RegionKind, TextSpan
from hsd_cli.drafts.ink_reading import with_ink_text
from hsd_cli.pages.ink_text import InkText

PAGE = PageImage(Path("p.pdf"), 0, Image.new("RGB", (1200, 1600)), 144)
# An area at (200, 400)-(1000, 1400) on the page, rendered at twice the page's resolution.
AREA = InkText((200.0, 400.0, 1000.0, 1400.0), PageImage(Path("p.pdf"), 0, Image.new("RGB", (1600, 2000)), 288))
PROSE = "we write to confirm the delivery of forty crates to the depot"  # 12 words


def region(text: str, bbox, order: int, kind=RegionKind.TEXT) -> Region:
    return Region(tuple(map(float, bbox)), kind, order, text, source="text_layer")


def page_regions() -> list[Region]:
    return [
        region("Exhibit 4, as received.", (100, 200, 1100, 300), 0),
        region("", (150, 350, 1050, 1450), 1, RegionKind.FIGURE),  # the picture, a little wider than its ink
        region("COPY FOR REVIEW", (300, 800, 900, 840), 2),  # a watermark over the area
        region("Filed under case 2291.", (100, 1450, 1100, 1500), 3),
    ]


def reader(*texts: str):
    """OCR standing in: one region a text, down the area (its own pixels)."""
    calls = []

    def read(image: PageImage) -> list[Region]:
        calls.append(image)
        return [
            Region((0.0, 400.0 * i, 1600.0, 400.0 * i + 300), RegionKind.TEXT, i, t, source="ocr")
            for i, t in enumerate(texts)
        ]

    read.calls = calls
    return read


def test_prose_in_an_area_takes_its_place_and_what_lay_over_it():
    read = reader(PROSE, PROSE, PROSE)
    got = with_ink_text(page_regions(), PAGE, [AREA], read)
    assert [r.text for r in got] == ["Exhibit 4, as received.", PROSE, PROSE, PROSE, "Filed under case 2291."]
    assert [r.order for r in got] == [0, 1, 2, 3, 4] and read.calls == [AREA.image]
    assert got[1].bbox == (200.0, 400.0, 1000.0, 550.0) and got[1].source == "ocr"  # on the page, at its dpi


def test_labels_and_a_transcribed_scan_stay_as_they_were():
    labels = reader("2019", "Revenue by year", "Figure 2 legend: actual and planned")
    assert with_ink_text(page_regions(), PAGE, [AREA], labels) == page_regions()
    layer = tuple(TextSpan((250.0, 450.0 + 40 * i, 950.0, 480.0 + 40 * i), PROSE) for i in range(2))
    transcribed = PageImage(PAGE.source, 0, PAGE.image, 144, text_spans=layer)  # 24 words there already
    assert with_ink_text(page_regions(), transcribed, [AREA], reader(PROSE, PROSE, PROSE)) == page_regions()


def test_an_area_no_region_marks_is_read_where_it_stands():
    regions = [r for r in page_regions() if r.bbox[1] < 400 or r.bbox[1] > 1400]
    got = with_ink_text(regions, PAGE, [AREA], reader(PROSE, PROSE, PROSE))
    assert [r.text for r in got] == ["Exhibit 4, as received.", PROSE, PROSE, PROSE, "Filed under case 2291."]
