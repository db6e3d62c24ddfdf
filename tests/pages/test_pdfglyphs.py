"""A page's formula pieces from its text layer (pages/pdfglyphs.py): extension fonts' glyphs."""

from __future__ import annotations

import pymupdf

from hsd_cli.pages import pdfglyphs


def test_extension_font_told_by_its_boxes():
    """A font whose glyph boxes hang below the baseline is an extension font (CMEX's kin, any name)."""
    span = {"size": 10.0, "chars": [{"c": "X", "bbox": (0, 99.4, 14, 104.3), "origin": (0, 100.0)}]}
    assert pdfglyphs._hangs_below(span)
    span["chars"][0]["bbox"] = (0, 92.0, 7, 102.0)  # a text font's box rises above its baseline
    assert not pdfglyphs._hangs_below(span)


def test_extension_glyph_without_unicode_read_by_its_raw_code():
    """A TeX extension font (mathptmx's CMEX10) whose glyph names MuPDF cannot map reads U+FFFD;
    its raw code 0x5A is CMEX's display integral, hanging 2.2 em below its origin."""
    char = {"c": "\ufffd", "bbox": (379.8, 772.6, 384.8, 778.3), "origin": (379.8, 773.0)}
    span = {"font": "CMEX10", "size": 9.0, "flags": 0, "chars": [char]}
    blocks = [{"lines": [{"spans": [span]}]}]

    class Page:  # the second extraction, with raw codes for glyphs without Unicode
        code = "Z"

        def get_text(self, kind, flags):
            assert flags & pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
            return {"blocks": [{"lines": [{"spans": [{**span, "chars": [{**char, "c": self.code}]}]}]}]}

        def get_texttrace(self):  # the glyphs the page draws
            return [{"chars": [(0xFFFD, 3, char["origin"], char["bbox"])]}]

    codes = pdfglyphs._raw_codes(Page(), blocks)
    (glyph,) = pdfglyphs._span_glyphs(span, True, codes)
    assert glyph.c == "\u222b" and glyph.big and abs(glyph.bbox[3] - (773.0 + 2.2 * 9.0)) < 1e-6
    # txex's big `(` (code 32) reads as a space: a drawn glyph, decoded; a space MuPDF adds is not drawn.
    char["c"], Page.code = " ", " "
    (glyph,) = pdfglyphs._span_glyphs(span, True, pdfglyphs._raw_codes(Page(), blocks))
    assert glyph.c == "(" and glyph.big


def test_extension_font_by_name_when_its_box_rises():
    """Euler's EUEX10 declares a text font's ascent, so its sum `P` (raw code 0x50) seems to rise
    above its baseline; by its name it is an extension font and the `P` is a sum hanging below,
    while a glyph whose code means nothing there (EUEX7's infinity) keeps its own box."""
    sigma = {"c": "P", "bbox": (151.0, 473.1, 161.5, 483.1), "origin": (151.0, 481.1)}
    span = {"font": "RLYTKG+EUEX10", "size": 10.0, "flags": 4, "chars": [sigma]}
    (glyph,) = pdfglyphs._span_glyphs(span)
    assert glyph.c == "\u2211" and glyph.big and glyph.bbox[1] > 480.0
    span["chars"] = [{"c": "\u221e", "bbox": (422.0, 511.9, 429.9, 518.9), "origin": (422.0, 517.5)}]
    (glyph,) = pdfglyphs._span_glyphs(span)
    assert glyph.c == "\u221e" and not glyph.big and glyph.bbox[1] == 511.9
    span["chars"] = [{"c": " ", "bbox": (80.0, 599.0, 83.0, 609.0), "origin": (80.0, 607.0)}]
    assert pdfglyphs._span_glyphs(span)[0].c == " "  # Euler's ` →∞` in text: a space, not a `(`
    span["font"] = "EURM10"  # the same `P` in a letter font is a P
    span["chars"] = [sigma]
    assert pdfglyphs._span_glyphs(span)[0].c == "P"


def test_tall_brackets_drawn_as_shapes_are_delimiters():
    """KaTeX draws a three-row matrix's brackets as filled SVG shapes: straight edges are a
    bracket, curves a parenthesis; the side their ink stands on halfway down says which."""
    doc = pymupdf.open()
    page = doc.new_page(width=200, height=200)
    shape = page.new_shape()
    left = [(20, 40), (25, 40), (25, 41), (21.2, 41), (21.2, 89), (25, 89), (25, 90), (20, 90)]
    shape.draw_polyline([*left, left[0]])
    shape.finish(fill=(0, 0, 0), color=None)
    # a `(` bulging left: its outer curve down in two halves, a foot, its inner curve up, a head
    shape.draw_bezier((60, 40), (56, 45), (54, 55), (54, 65))
    shape.draw_bezier((54, 65), (54, 75), (56, 85), (60, 90))
    shape.draw_line((60, 90), (61, 89))
    shape.draw_bezier((61, 89), (57.5, 84), (56, 75), (56, 65))
    shape.draw_bezier((56, 65), (56, 55), (57.5, 46), (61, 41))
    shape.draw_line((61, 41), (60, 40))
    shape.finish(fill=(0, 0, 0), color=None, closePath=True)
    shape.commit()
    fences = sorted(pdfglyphs.page_fences(page), key=lambda g: g.bbox[0])
    assert [f.c for f in fences] == ["[", "("] and all(f.big for f in fences)
    assert abs(fences[0].bbox[1] - 40) < 1 and abs(fences[0].bbox[3] - 90) < 1


def test_braces_drawn_as_shapes_are_brace_glyphs():
    """KaTeX draws `\\underbrace` as three curved filled pieces side by side, the middle one (the
    tip) lower than the ends; an over-brace's tip is higher. Other curved shapes are no braces."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    shape = page.new_shape()
    for x0, dy in ((20, 0), (50, 3), (80, 0), (150, 0), (180, -3), (210, 0)):  # two braces
        y = 100 + dy
        shape.draw_bezier((x0, y), (x0 + 10, y + 4), (x0 + 20, y + 4), (x0 + 30, y + 4.5))
        shape.draw_line((x0 + 30, y + 4.5), (x0, y + 1))
        shape.finish(fill=(0, 0, 0), color=None, closePath=True)
    shape.draw_circle((100, 40), 10)
    shape.finish(fill=(0, 0, 0), color=None)
    shape.commit()
    braces = sorted(pdfglyphs.page_braces(page), key=lambda g: g.bbox[0])
    assert [b.c for b in braces] == ["⏟", "⏞"]
    assert abs(braces[0].bbox[0] - 20) < 1 and abs(braces[0].bbox[2] - 110) < 1


def test_a_radical_drawn_as_a_shape_is_a_sign_and_a_box_with_round_corners_is_none():
    """KaTeX's `\\sqrt`: one filled shape, the sign's strokes at its left, its bar along the top;
    a code block's background (a filled box with round corners) is crossed at both sides."""
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=300)
    shape = page.new_shape()
    sign = [(10, 110), (14, 104), (18, 116), (26, 90), (80, 90), (80, 91.5), (26.8, 91.5), (18.5, 120)]
    shape.draw_polyline([*sign, (13.5, 106), (11, 111), (10, 110)])
    shape.finish(fill=(0, 0, 0), color=None, closePath=True)
    shape.draw_rect(pymupdf.Rect(20, 200, 280, 250), radius=0.1)
    shape.finish(fill=(0.2, 0.2, 0.2), color=None)
    # a shape of lines and a rectangle in one path (a rectangle's item holds no end point)
    shape.draw_polyline([(20, 150 + (k % 2) * 8 + k) for k in range(9)])
    shape.draw_rect(pymupdf.Rect(40, 150, 120, 170))
    shape.finish(fill=(0, 0, 0), color=None)
    shape.commit()
    surds = pdfglyphs.page_surds(page)
    assert [round(sign.bbox[1]) for sign, _ in surds] == [90]
