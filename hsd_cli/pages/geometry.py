"""Box geometry of a page's text lines: lines into boxes, lines into blocks, prose tests.

Shared by the PDF readers here and the draft sources above (drafts/), which build on it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from hsd_cli.datatypes import BBox, TextSpan

_RTL = re.compile(r"[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
# CJK radicals, punctuation, kana and ideographs, compatibility ideographs and forms, full-width
# forms; not Hangul: Korean spaces its words.
_CJK_CHARS = "\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
CJK = re.compile(f"[{_CJK_CHARS}]")
UNSPACED = re.compile(f"[\u0e00-\u0e7f{_CJK_CHARS}]")  # scripts that set words without spaces: CJK, Thai
_WORD = re.compile(r"[^\W\d_]{3,}")  # three letters or more: "the", "where", not "x" or "dx"
PROSE_LINE_CHARS = 15
GUTTER = 0.6  # a gutter between columns of lines is at least this many line heights wide
SIDEWAYS = 3.0  # a line this many times taller than wide runs up or down the page
COLUMN_STEP = 4.0  # line heights right of a wide line where a column's lines under it start
LEVEL = 0.5  # line heights within which two lines of a column start and end alike


def area(b: BBox) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def sideways(box: BBox, chars: int) -> bool:
    """A line of `chars` characters set up or down the page (a stamp along its edge): several
    characters in a box many times taller than wide."""
    return chars >= 4 and box[3] - box[1] >= SIDEWAYS * max(box[2] - box[0], 1e-6)


def intersection(a: BBox, b: BBox) -> float:
    return area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def mostly_in(a: BBox, b: BBox) -> bool:
    """Over half of `a` lies in `b`."""
    return intersection(a, b) > 0.5 * area(a)


def body_size(lines: list[TextSpan]) -> float:
    """The type size most of the lines' characters are set in (0.0 for no lines; OCR lines carry 0)."""
    sizes: Counter[float] = Counter()
    for line in lines:
        sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def union_box(boxes: list[BBox]) -> BBox:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def unrotate_box(box: BBox, angle: int, size: tuple[int, int]) -> BBox:
    """Map a box found on `image.rotate(angle, expand=True)` (PIL: counter-clockwise, 0/90/180/270)
    back onto the original image of `size`."""
    (ax, ay), (bx, by) = (_unrotate(x, y, angle, *size) for x, y in ((box[0], box[1]), (box[2], box[3])))
    return (min(ax, bx), min(ay, by), max(ax, bx), max(ay, by))


def _unrotate(u: float, v: float, angle: int, w: int, h: int) -> tuple[float, float]:
    if angle == 90:  # PIL turns counter-clockwise: original (x, y) went to (y, w - x)
        return w - v, u
    if angle == 180:
        return w - u, h - v
    if angle == 270:  # original (x, y) went to (h - y, x)
        return v, h - u
    return u, v


def assign_lines(lines: list[TextSpan], boxes: list[BBox]) -> tuple[list[list[TextSpan]], list[TextSpan]]:
    """Put each line in the box holding most of it (at least half); return (per box, leftovers).

    Of boxes holding a line alike, the smallest takes it: a sidebar or pull quote floated into a
    paragraph's box keeps its lines, which the paragraph would interleave with its own by height.
    """
    inside: list[list[TextSpan]] = [[] for _ in boxes]
    leftovers = []
    for line in lines:
        best, best_i = 0.5 * max(area(line.bbox), 1e-6), -1
        for i, box in enumerate(boxes):
            shared = intersection(line.bbox, box)
            if shared > best or (shared == best and (best_i < 0 or area(box) <= area(boxes[best_i]))):
                best, best_i = shared, i
        (inside[best_i] if best_i >= 0 else leftovers).append(line)
    return inside, leftovers


def group_lines(lines: list[TextSpan], pitch: float = 0.0) -> list[list[TextSpan]]:
    """Blocks of lines that follow each other closely, overlap horizontally and look alike; a
    known line `pitch` (px from top to top; 0: unknown) also joins lines spaced wider apart."""
    blocks: list[list[TextSpan]] = []
    for line in sorted(lines, key=lambda s: (s.bbox[1], s.bbox[0])):
        home = next((b for b in reversed(blocks) if _continues(b[-1], line, pitch)), None)
        if home is None:
            blocks.append([line])
        else:
            home.append(line)
    return [part for block in blocks for part in _column_below(block)]


def _column_below(block: list[TextSpan]) -> list[list[TextSpan]]:
    """`block` cut where a wide line (a box's text set across the columns) is followed by lines
    of one column under it: lines that start COLUMN_STEP line heights right of it and keep one
    width between them, as a column's justified lines do. A paragraph's lines start level (a
    hanging indent by a few letters); centred lines do not keep one width."""
    for k in range(1, len(block) - 1):
        wide, first, second = block[k - 1].bbox, block[k].bbox, block[k + 1].bbox
        height = first[3] - first[1]
        steps = first[0] - wide[0] > COLUMN_STEP * height
        column = abs(second[0] - first[0]) < LEVEL * height and abs(second[2] - first[2]) < LEVEL * height
        if steps and column:
            return [block[:k], *_column_below(block[k:])]
    return [block]


def _continues(prev: TextSpan, line: TextSpan, pitch: float = 0.0) -> bool:
    h_prev, h = prev.bbox[3] - prev.bbox[1], line.bbox[3] - line.bbox[1]
    gap = line.bbox[1] - prev.bbox[3]
    overlap_x = min(prev.bbox[2], line.bbox[2]) - max(prev.bbox[0], line.bbox[0])
    # Type sizes, where known, say it better than heights a superscript (a footnote mark) raises.
    sized = prev.size > 0 and line.size > 0
    alike = (0.9 < line.size / prev.size < 1.11 if sized else 0.75 < (h + 1e-6) / (h_prev + 1e-6) < 1.33) and (
        prev.bold == line.bold
    )
    close = -0.5 * h < gap < 0.9 * max(h, h_prev) or 0 < line.bbox[1] - prev.bbox[1] <= 1.25 * pitch
    if pitch and alike and same_row(prev.bbox, line.bbox):  # a justified line MuPDF cut at a wide space
        return 0 <= line.bbox[0] - prev.bbox[2] < h
    return alike and close and overlap_x > 0


def line_columns(lines: list[TextSpan]) -> list[list[TextSpan]]:
    """Lines split at gutters no line crosses, left to right; `[lines]` when there is none.

    A gutter is at least GUTTER of a line's height wide (the gaps of a justified line split into
    words are narrower, and other rows cross them; LaTeX's 10 pt column gap beside 12 pt type is
    under a line's height); a single row is never split.
    """
    if len(split_rows(lines)) < 2:
        return [lines]
    height = sorted(s.bbox[3] - s.bbox[1] for s in lines)[len(lines) // 2]
    columns: list[list[TextSpan]] = []
    end = float("-inf")
    for line in sorted(lines, key=lambda s: s.bbox[0]):
        if line.bbox[0] - end >= GUTTER * height:
            columns.append([])
        columns[-1].append(line)
        end = max(end, line.bbox[2])
    return columns if len(columns) > 1 else [lines]


_HARD_HYPHEN = re.compile(r"[^\W_]-$")  # a letter or digit, then the hyphen, ending a line
# A capitalised word (not a word in capitals, which a hyphenated heading's rest is, nor a number)
_CAPITALISED = re.compile(r"[^\W\d_][^\W\d_]*[a-z]")


def join_lines(lines: list[TextSpan]) -> str:
    """Text of a block: lines in reading order, hyphenated line ends rejoined, no spaces in CJK."""
    text = ""
    for line in sort_lines(_attach_drop_cap(lines)):
        if not text:
            text = line.text
        elif text.endswith("-") and line.text[:1].islower():
            text = text[:-1] + line.text
        elif _HARD_HYPHEN.search(text) and _CAPITALISED.match(line.text):
            text += line.text  # a compound broken at its own hyphen: Stefan-/Boltzmann, Om Al-/Haymann
        elif CJK.match(text[-1]) and CJK.match(line.text[0]):
            text += line.text
        else:
            text += " " + line.text
    return text


def _attach_drop_cap(lines: list[TextSpan]) -> list[TextSpan]:
    """Glue a drop cap (one big initial letter beside the first lines) to the first line."""
    heights = sorted(s.bbox[3] - s.bbox[1] for s in lines)
    caps = [
        s
        for s in lines
        if len(s.text) == 1 and s.text.isalpha() and s.bbox[3] - s.bbox[1] > 1.8 * heights[len(heights) // 2]
    ]
    if len(caps) != 1 or len(lines) < 2:
        return lines
    rest = [s for s in lines if s is not caps[0]]
    first = min(rest, key=lambda s: (s.bbox[1], s.bbox[0]))
    glued = replace(first, text=caps[0].text + first.text)  # keeps its own box: one row
    return [glued if s is first else s for s in rest]


def sort_lines(lines: list[TextSpan]) -> list[TextSpan]:
    """Top to bottom; lines sharing most of their height form a row, read in script direction."""
    ordered = []
    for row in split_rows(lines):
        rtl = is_rtl(" ".join(line.text for line in row))
        ordered += sorted(row, key=lambda s: -s.bbox[2] if rtl else s.bbox[0])
    return ordered


def is_rtl(text: str) -> bool:
    """Mostly Arabic or Hebrew letters."""
    rtl = len(_RTL.findall(text))
    return rtl > 0 and rtl >= sum(c.isalpha() for c in text) - rtl


def split_rows(lines: list[TextSpan]) -> list[list[TextSpan]]:
    rows: list[list[TextSpan]] = []
    for line in sorted(lines, key=lambda s: (s.bbox[1] + s.bbox[3]) / 2):
        if rows and same_row(rows[-1][-1].bbox, line.bbox):
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def joined_rows(lines: list[TextSpan]) -> list[TextSpan]:
    """One line per row of one column: the pieces MuPDF cut a justified line into, joined."""
    out = []
    for row in split_rows(lines):
        row = sorted(row, key=lambda s: s.bbox[0])
        out.append(replace(row[0], bbox=union_box([s.bbox for s in row]), text=" ".join(s.text for s in row)))
    return out


def spanned_pieces_joined(lines: list[TextSpan]) -> list[TextSpan]:
    """`lines` with the pieces MuPDF cut a justified line into at its wide spaces joined, where a
    line of the same type right above or below runs across the space: a narrow column's
    spaces can be wider than a gutter, but no line crosses a gutter."""
    out: list[TextSpan] = []
    for row in split_rows(lines):
        row = sorted(row, key=lambda s: s.bbox[0])
        pieces = [row[0]]
        for piece in row[1:]:
            last = pieces[-1]
            if _spanned(last, piece, lines):
                piece = replace(last, bbox=union_box([last.bbox, piece.bbox]), text=f"{last.text} {piece.text}")
                pieces.pop()
            pieces.append(piece)
        out += pieces
    return out


def _spanned(left: TextSpan, right: TextSpan, lines: list[TextSpan]) -> bool:
    """A line alike to both pieces, a line's height or less above or below them, across their gap."""
    h = left.bbox[3] - left.bbox[1]
    for line in lines:
        near = 0 <= line.bbox[1] - left.bbox[3] < h or 0 <= left.bbox[1] - line.bbox[3] < h
        if near and line.bbox[0] <= left.bbox[2] and line.bbox[2] >= right.bbox[0] and _alike(line, left, right):
            return True
    return False


def _alike(*lines: TextSpan) -> bool:
    sizes = [s.size for s in lines]
    return len({s.bold for s in lines}) == 1 and (min(sizes) <= 0 or max(sizes) < 1.11 * min(sizes))


def same_row(a: BBox, b: BBox) -> bool:
    shared = min(a[3], b[3]) - max(a[1], b[1])
    return shared > 0.5 * min(a[3] - a[1], b[3] - b[1])


def mostly_prose(lines: list[TextSpan]) -> bool:
    """Lines whose characters are mostly in long prose lines: a column of text, not a table.

    OCR layout boxes a chart beside a text column as one "table"; read as a grid, its rows
    interleave axis labels with the column's lines. Table cells rarely reach PROSE_LINE_CHARS
    (a row label such as a line item of an income statement), prose lines in a column do.
    """
    total = prose = 0
    for line in lines:
        n = sum(not c.isspace() for c in line.text)
        total += n
        prose += n if n >= PROSE_LINE_CHARS and is_prose(line.text) else 0
    return total > 0 and prose >= 0.5 * total


def prose_lines(lines: list[TextSpan]) -> tuple[list[TextSpan], list[TextSpan]]:
    """Split a formula's lines into (formula, prose): prose is a run of ordinary words."""
    formula, prose = [], []
    for line in lines:
        (prose if is_prose(line.text) else formula).append(line)
    return formula, prose


def is_prose(text: str) -> bool:
    """Several real words in a row and few symbols: a sentence, not mathematics."""
    chars = [c for c in text if not c.isspace()]
    if len(CJK.findall(text)) >= 6:
        return True
    words = _WORD.findall(text)
    letters = sum(len(w) for w in words)
    return len(words) >= 4 and letters >= 0.7 * len(chars)
