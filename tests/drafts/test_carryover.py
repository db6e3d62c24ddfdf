"""A word hyphenated across two regions rejoined in the first (drafts/carryover.py)."""

from __future__ import annotations

from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts.carryover import rejoined

TEXT = RegionKind.TEXT


def test_a_word_hyphenated_at_a_column_foot_is_finished_there():
    """Column one ends `distribu-`, column two (after the page's footer in reading order) goes
    on `tions identify`: the word is written whole where it starts."""
    left = Region((50, 700, 290, 770), TEXT, 0, "All asymmetric distribu-")
    footer = Region((280, 800, 300, 810), RegionKind.FOOTER, 1, "3")
    right = Region((300, 50, 540, 80), TEXT, 2, "tions identify the protein.")
    out = rejoined([left, footer, right])
    assert [r.text for r in out] == ["All asymmetric distributions", "3", "identify the protein."]


def test_a_dash_before_a_capital_or_a_heading_stays():
    left = Region((50, 700, 290, 770), TEXT, 0, "the pre-")
    assert rejoined([left, Region((300, 50, 540, 80), TEXT, 1, "Then more.")])[0].text == "the pre-"
    heading = Region((300, 50, 540, 80), RegionKind.TITLE, 1, "tools")
    assert rejoined([left, heading])[0].text == "the pre-"


def test_a_region_that_held_only_the_word_end_goes():
    out = rejoined([Region((0, 0, 9, 9), TEXT, 0, "a distribu-"), Region((20, 0, 29, 9), TEXT, 1, "tion.")])
    assert [r.text for r in out] == ["a distribution."]
