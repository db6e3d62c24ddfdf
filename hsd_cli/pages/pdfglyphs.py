"""A born-digital page's formula pieces: its glyphs (what each means, where it sits) and its rules.

MuPDF's glyph records become `Glyph`s (pages/mathglyph.py): an extension font's raw codes
decoded and its boxes set from the codes (its glyphs hang below their origin), misread glyphs
left out. Horizontal rules are fraction bars and vincula; a browser's radicals, drawn as one
filled path, become a sign and its bar, its horizontal braces a brace glyph. Coordinates: PDF points.
"""

from __future__ import annotations

from collections.abc import Iterator

import pymupdf

from hsd_cli.pages import geometry as geo
from hsd_cli.pages import mathchars as mc
from hsd_cli.pages import misread
from hsd_cli.pages.glyphs import INVISIBLE
from hsd_cli.pages.mathglyph import Glyph, Rule

_RULE_HEIGHT = 1.5  # points: thicker "rules" are boxes, not fraction bars
BRACE_HEIGHT = 0.33  # ems a drawn brace's end piece is tall (KaTeX)


def page_glyph_lines(page: pymupdf.Page) -> list[tuple[tuple, list[Glyph]]]:
    """Every visible text line of the page: (its box, its glyphs), in PDF points."""
    blocks = page.get_text("rawdict", flags=pymupdf.TEXTFLAGS_RAWDICT)["blocks"]
    codes = _raw_codes(page, blocks)
    lines = []
    for block in blocks:
        for line in block.get("lines", ()):
            level = misread.is_level(line)
            glyphs = [g for s in line["spans"] if s.get("alpha", 255) > 0 for g in _span_glyphs(s, level, codes)]
            if glyphs:  # an extension glyph's box is set from its code: the line's takes it in
                box = geo.union_box([line["bbox"], *(g.bbox for g in glyphs if g.big)])
                lines.append((tuple(box), glyphs))
    return lines


def _raw_codes(page: pymupdf.Page, blocks: list[dict]) -> dict[tuple, str]:
    """Raw codes (by origin) of the extension-font glyphs MuPDF finds no Unicode for: a TeX
    extension font's glyph names (`integraldisplay`) mean nothing to it, its codes are CMEX's
    layout (mathchars.CMEX); txex's big `(` (code 32) even reads as a space. Only glyphs the
    page draws count (not the spaces MuPDF adds at gaps); read only when the page needs them."""
    spans = [s for b in blocks for line in b.get("lines", ()) for s in line["spans"]]
    if not any(_unread(c["c"]) for s in spans if _hangs_below(s) for c in s["chars"]):
        return {}
    drawn = {(round(ch[2][0], 2), round(ch[2][1], 2)) for t in page.get_texttrace() for ch in t["chars"]}
    flags = pymupdf.TEXTFLAGS_RAWDICT | pymupdf.TEXT_CID_FOR_UNKNOWN_UNICODE
    coded = page.get_text("rawdict", flags=flags)["blocks"]
    chars = [c for b in coded for line in b.get("lines", ()) for s in line["spans"] for c in s["chars"]]
    return {_at(c): c["c"] for c in chars if _at(c) in drawn}


def _unread(c: str) -> bool:
    return c == misread.UNMAPPED or c.isspace()


def _at(ch: dict) -> tuple:
    return round(ch["origin"][0], 2), round(ch["origin"][1], 2)


def _span_glyphs(span: dict, level: bool = True, codes: dict[tuple, str] | None = None) -> list[Glyph]:
    font, size, flags = span["font"], span["size"], span["flags"]
    italic, bold = mc.is_italic(font, flags), mc.is_bold(font, flags)
    hangs = _hangs_below(span)
    named = not hangs and mc.is_extension(font)  # its raw codes say which glyphs hang (a sum's P)
    out = []
    for ch in misread.checked_chars(span, level):  # misread glyphs build no formula
        if ch["c"] in INVISIBLE:  # KaTeX's zero-width space: no ink, yet a glyph in the math font
            continue
        # (not a space MuPDF puts between glyphs: code 0x20 would read as CMEX's `(`)
        is_ext = hangs or (named and not ch["c"].isspace() and mc.glyph_char(ch["c"], True) != ch["c"])
        raw = (codes or {}).get(_at(ch), ch["c"]) if is_ext and _unread(ch["c"]) else ch["c"]
        c = mc.font_char(mc.glyph_char(raw, is_ext), font)
        bbox, base = tuple(ch["bbox"]), ch["origin"][1]
        if is_ext:  # extension glyphs hang below their origin; MuPDF's box is the font's, not theirs
            bbox = (bbox[0], base - 0.1 * size, bbox[2], base + mc.extension_depth(raw) * size)
        slanted, heavy = mc.alphanumeric_style(ch["c"])
        out.append(Glyph(c, bbox, base, size, font, italic or slanted, bold or heavy, big=is_ext))
    return out


def _hangs_below(span: dict) -> bool:
    """A TeX extension font (CMEX and its kin: big operators, sized delimiters): its glyph boxes
    start at the baseline and hang below it, where every text font's rise above it."""
    chars = [ch for ch in span["chars"] if not ch["c"].isspace()] or span["chars"]  # txex's `(` reads " "
    return bool(chars) and all(ch["bbox"][1] >= ch["origin"][1] - 0.25 * span["size"] for ch in chars)


def page_surds(page: pymupdf.Page) -> list[tuple[Glyph, Rule]]:
    """Radical signs drawn as filled paths: many curved or slanted pieces in a box wider than
    tall, cut to the clip it is drawn in (the path itself runs on far to the right)."""
    out = []
    for path, box in _clipped_fills(page):
        h = box.height
        if len(path.get("items", ())) >= 8 and 4 <= h <= 60 and box.width >= 1.2 * h and _sign_at_left(path, box):
            sign = Glyph("√", (box.x0, box.y0, box.x0 + 0.6 * h, box.y1), box.y1 - 0.2 * h, h, big=True)
            out.append((sign, Rule(box.x0 + 0.5 * h, box.x1, box.y0 + 0.03 * h)))
    return out


def _sign_at_left(path: dict, box: pymupdf.Rect) -> bool:
    """Whether the shape's edges cross its middle height only at its left (the sign's strokes; the
    bar runs along the top): a filled box with round corners (a code block's) is crossed at both sides."""
    if not {item[0] for item in path["items"]} <= {"l", "c"}:
        return False  # drawn of rectangles or quads: a box, no stroke
    cuts = _crossings(path["items"], (box.y0 + box.y1) / 2)
    return bool(cuts) and max(cuts) <= box.x0 + box.height


def page_braces(page: pymupdf.Page) -> list[Glyph]:
    """Horizontal braces drawn as filled shapes (KaTeX's `\\underbrace`, `\\overbrace`): three
    curved pieces side by side, each wider than tall, cut to their clips; a middle piece lower
    than the ends is an under-brace's tip (pointing down), a higher one an over-brace's."""
    pieces = [box for path, box in _clipped_fills(page) if _brace_piece(path, box)]
    out = []
    for left in pieces:
        if any(_follows(left, b) for b in pieces):
            continue  # not a brace's first piece
        chain = [left]
        while len(chain) <= 3 and (more := [b for b in pieces if _follows(b, chain[-1])]):
            chain.append(more[0])
        if len(chain) == 3:
            box = tuple(chain[0] | chain[1] | chain[2])
            c = "⏟" if chain[1].y0 > (chain[0].y0 + chain[2].y0) / 2 else "⏞"
            out.append(Glyph(c, box, box[3], left.height / BRACE_HEIGHT, big=True))
    return out


def _brace_piece(path: dict, box: pymupdf.Rect) -> bool:
    curved = any(item[0] == "c" for item in path.get("items", ()))
    return curved and 2 <= box.height <= 15 and box.width >= 2 * box.height


def _follows(b: pymupdf.Rect, a: pymupdf.Rect) -> bool:
    """Whether piece `b` starts where piece `a` ends, at about its height."""
    return b is not a and abs(b.x0 - a.x1) <= 1.5 and abs(b.y0 - a.y0) <= a.height


def _clipped_fills(page: pymupdf.Page) -> Iterator[tuple[dict, pymupdf.Rect]]:
    """Each filled path and its box cut to the clips it is drawn in."""
    clips: dict[int, pymupdf.Rect] = {}
    for path in page.get_drawings(extended=True):
        level = path.get("level", 0)
        clips = {k: v for k, v in clips.items() if k < level}
        if path["type"] == "clip":
            clips[level] = pymupdf.Rect(path["scissor"])
            continue
        if "f" not in path["type"]:
            continue
        box = pymupdf.Rect(path["rect"])
        for clip in clips.values():
            box &= clip
        yield path, box


def page_fences(page: pymupdf.Page) -> list[Glyph]:
    """Tall brackets and parentheses drawn as one filled path (KaTeX draws a delimiter taller
    than its largest font's as an SVG shape: a three-row matrix's): narrow and tall, straight
    edges only a bracket, curved ones a parenthesis; its ink halfway down on the left side of
    its box an opener. Each hangs from its top, as an extension font's glyph."""
    out = []
    for path in page.get_drawings():
        box, items = pymupdf.Rect(path["rect"]), path.get("items", ())
        kinds = {item[0] for item in items}
        if "f" not in path["type"] or len(items) < 6 or not kinds <= {"l", "c"}:
            continue
        if not (box.height >= 20 and 1.5 <= box.width <= 0.2 * box.height):
            continue
        cuts = _crossings(items, box.y0 + 0.4 * box.height)  # (KaTeX splits its paths at the middle)
        if not cuts:
            continue
        shape = "[]" if kinds == {"l"} else "()"
        c = shape[0] if sum(cuts) / len(cuts) < (box.x0 + box.x1) / 2 else shape[1]
        size = box.width / 0.35  # a tall delimiter is about a third of an em wide
        out.append(Glyph(c, tuple(box), box.y0 + 0.1 * size, size, big=True))
    return out


def _crossings(items: list, y: float) -> list[float]:
    """Where the path's edges (a curve by its chord) cross the height `y`."""
    out = []
    for item in items:
        a, b = item[1], item[-1]
        if (a.y - y) * (b.y - y) < 0:
            out.append(a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y))
    return out


def page_rules(page: pymupdf.Page) -> list[Rule]:
    """Thin horizontal lines and filled bars: candidate fraction bars and radical vincula."""
    rules = []
    for path in page.get_drawings():
        for item in path["items"]:
            if item[0] == "l" and abs(item[1].y - item[2].y) < 0.5 and abs(item[1].x - item[2].x) > 2:
                rules.append(Rule(min(item[1].x, item[2].x), max(item[1].x, item[2].x), item[1].y))
            elif item[0] == "re" and 0 < item[1].height <= _RULE_HEIGHT and item[1].width > 2:
                r = item[1]
                rules.append(Rule(r.x0, r.x1, (r.y0 + r.y1) / 2))
    return rules
