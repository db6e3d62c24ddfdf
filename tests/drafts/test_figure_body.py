"""drafts/figure_body.py: a figure's box never takes the page's body text out of the Markdown."""

from __future__ import annotations

import pymupdf
from test_text_layer import line, page_of

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts import TextLayerSource, page_markdown
from hsd_cli.drafts.figure_body import split_figure
from hsd_cli.drafts.rapid import RapidOcrSource
from hsd_cli.pages import pdffigures

# One layout box over two figures and the six lines of body text between them.
BOX = (60, 100, 900, 900)
BODY = [
    "Boots self-locking nuts are made with three different spring",
    "designs, each of them locking the nut on its bolt by the force",
    "of a spring that presses the threads against the bolt once the",
    "nut is tightened, so that vibration cannot turn it back; their",
    "names and the loads they carry are set out in the table below,",
    "and the figures show how each of them is made.",  # a paragraph's short last line
]
LABELS = ["Fig. A", "spring", "bolt", "0.5 in", "Fig. B", "nut"]


def _lines():
    body = [line(80, 420 + 24 * i, text, width=800 if i < 5 else 380) for i, text in enumerate(BODY)]
    top = [
        line(200, 150, LABELS[0], width=60),
        line(400, 250, LABELS[1], width=60),
        line(600, 300, LABELS[2], width=50),
    ]
    low = [
        line(150, 700, LABELS[3], width=60),
        line(400, 760, LABELS[4], width=60),
        line(650, 850, LABELS[5], width=40),
    ]
    return top + body + low


def test_the_body_lines_leave_the_figure_and_the_box_is_cut_around_them() -> None:
    """Two figures are left, above and below the paragraph, each with its own labels."""
    split = split_figure(BOX, _lines())
    assert [s.text for s in split.body] == BODY  # the short last line too: not a label
    assert [box for box, _ in split.pieces] == [(60, 100, 900, 420), (60, 560, 900, 900)]
    assert [[s.text for s in own] for _, own in split.pieces] == [LABELS[:3], LABELS[3:]]


def test_a_figure_box_over_body_text_keeps_every_body_line_in_the_markdown() -> None:
    """Text-layer drafts: not one line of the paragraph is lost to the figure (the issue's page
    lost "Boots self-locking nuts are made with three different spring")."""
    page = page_of(*_lines(), layout=(Region(BOX, RegionKind.FIGURE, 0, ""),))
    regions = TextLayerSource().regions(page)
    markdown = page_markdown(regions)
    assert " ".join(BODY) in markdown  # one paragraph, in order
    figures = [r for r in regions if r.kind is RegionKind.FIGURE]
    assert len(figures) == 2 and figures[0].text == "Fig. A spring bolt"  # labels: the figure's text
    assert not any(label in markdown.replace(" ".join(BODY), "") for label in ("spring bolt", "0.5 in"))


def test_ocr_drafts_keep_the_body_lines_a_figure_box_reaches_over(monkeypatch) -> None:
    """The OCR layout's figure box: the same rule, the same paragraph."""
    source = RapidOcrSource()
    monkeypatch.setattr(source, "_layout_boxes", lambda image: ([BOX], [RegionKind.FIGURE]))
    regions = source._regions(page_of().image, _lines())
    assert " ".join(BODY) in page_markdown(regions)
    assert sum(r.kind is RegionKind.FIGURE for r in regions) == 2


def test_a_figure_keeps_lines_that_are_its_own() -> None:
    """Labels, an axis title and a sentence alone (a syntax diagram's note) stay the figure's."""
    own = [
        line(100, 200, "Revenue per quarter in the region", width=200),
        line(100, 400, "Specifies an optional correlation name that can be used within search-condition", width=700),
        line(300, 600, "2021", width=40),
    ]
    split = split_figure(BOX, own)
    assert split.body == () and split.pieces == ((BOX, tuple(own)),)


def test_a_picture_grows_over_its_labels_but_not_over_a_sentence() -> None:
    """pages/pdffigures: a paragraph's short last line beside a picture is no label of it."""
    picture = pymupdf.Rect(100, 100, 300, 200)
    label = (pymupdf.Rect(120, 204, 160, 212), "x (mm)")
    sentence = (pymupdf.Rect(100, 214, 290, 222), "as the figure shows here.")
    (grown,) = pdffigures._grown([picture], [label, sentence])
    assert grown.y1 == 212  # not 222
