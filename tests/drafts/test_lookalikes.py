"""Stray ideographs on a page of Latin text: look-alikes become symbols, lone others go."""

from __future__ import annotations

from hsd_cli.datatypes import TextSpan
from hsd_cli.drafts.lookalikes import latin_symbols

PROSE = "The estimator represents all conditional tissues near the threshold of the interval."


def lines(*texts: str) -> list[TextSpan]:
    return [TextSpan((0, 40 * i, 300, 40 * i + 30), t) for i, t in enumerate(texts)]


def test_a_latin_page_gets_its_symbols_back() -> None:
    """A formula's plus read as 十 is a plus, a lone 不 goes; a bar read alone as 一 is no line."""
    got = latin_symbols(lines(PROSE, "∂V/∂t 十 rS ∂V/∂S 一 rV = 2不", "一"))
    assert [s.text for s in got] == [PROSE, "∂V/∂t + rS ∂V/∂S \u2212 rV = 2"]


def test_cjk_text_stays_as_read() -> None:
    """A page of CJK text, a CJK word on a Latin page, and a page too short to tell."""
    chinese = lines("第一章 总则", "十", "一")
    assert latin_symbols(chinese) == chinese
    quoted = lines(PROSE, "as the proverb 不是 says")
    assert latin_symbols(quoted) == quoted
    short = lines("x 十 1")
    assert latin_symbols(short) == short
