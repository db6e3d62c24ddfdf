"""A page number standing alone in a side margin (a landscape page's portrait folio) is furniture."""

from __future__ import annotations

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts.side_folios import relabel

T = RegionKind.TEXT


def region(text: str, bbox, kind=T) -> Region:
    return Region(tuple(map(float, bbox)), kind, 0, text)


def landscape(folio_box) -> list[Region]:
    return [
        region("Wide results", (239, 268, 466, 293), RegionKind.TITLE),
        region("Quisque ullamcorper placerat ipsum.", (239, 317, 1335, 407)),
        region("2", folio_box, RegionKind.LIST),
        region("Suspendisse vel felis.", (239, 556, 1335, 670)),
    ]


def test_a_folio_left_or_right_of_the_body_is_a_footer():
    for box in ((175, 606, 193, 616), (1390, 606, 1408, 616)):
        kinds = [r.kind for r in relabel(landscape(box))]
        assert kinds == [RegionKind.TITLE, T, RegionKind.FOOTER, T]


def test_numbers_within_the_body_stay():
    """A number inside the body's columns (a list's, a table's, a lone figure) is no folio."""
    assert relabel(landscape((700, 606, 718, 616))) == landscape((700, 606, 718, 616))
    words = [region("Note", (175, 606, 230, 616))] + landscape((700, 606, 718, 616))[:2]
    assert relabel(words) == words
    assert relabel([region("2", (175, 606, 193, 616))]) == [region("2", (175, 606, 193, 616))]  # no body
