"""Inline formulas in a text line: which words are mathematics, and their `$latex$`.

A word is mathematics when it holds a glyph only mathematics uses (a math font, a Greek
letter or operator symbol, a raised or lowered smaller glyph) and no run of four or more text
letters (a real word); single italic letters, digits and operators join a formula beside them.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter

from hsd_cli.pages import mathchars as mc
from hsd_cli.pages.formula import Glyph, Rule, to_latex

_WEAK = frozenset("=+-−<>/|()[],.'*0123456789")
_NAMES = mc.FUNCTIONS | {"mod"}  # operator names, weak like an italic letter
_TRAIL = frozenset(".,;:")  # sentence punctuation after a formula stays in the text
_NOT_MATH = frozenset("•◦▪▸►–—·")  # bullets and dashes in symbol fonts
_NOTE_MARKS = frozenset("*†‡§¶")  # footnote marks besides numbers
_RELATIONS = frozenset("=<>≤≥≈≡≠∼")
_NAME_CALL = re.compile(r"([A-Za-z]+)\(")  # a name applied to a parenthesised argument
# `$..$` (not `$$`) holding LaTeX markup (a price like "$5 and $10" holds none, so it is left alone).
_INLINE = re.compile(r"(?<!\$)\$(?!\$)([^$\n]*?[\\_^{][^$\n]*?)\$(?!\$)")


def delimited(text: str, formula: str) -> str:
    """Inline formulas in the target's delimiters: `\\(..\\)` where it writes display math as `\\[..\\]`."""
    return _INLINE.sub(lambda m: f"\\({m[1]}\\)", text) if formula == "brackets" and "$" in text else text


def unpadded(text: str) -> str:
    """`text` with each inline formula's padding dropped: `$ \\pm $` -> `$\\pm$`."""
    return _INLINE.sub(lambda m: f"${m[1].strip()}$", text)


def line_segments(glyphs: list[Glyph], rules: list[Rule] = ()) -> list[tuple[str, str]] | None:
    """(plain text, latex or "") pieces of the line; None when it holds no formula."""
    words = _words(glyphs)
    size, baseline = _body(glyphs)
    kinds = [_kind(w, size, baseline) for w in words]
    math = _spread([k == "math" for k in kinds], [k == "weak" for k in kinds])
    if not any(math):
        return None
    segments: list[tuple[str, str]] = []
    i = 0
    while i < len(words):
        j = i
        while j < len(words) and math[j] == math[i]:
            j += 1
        run = [g for w in words[i:j] for g in w]
        segments += _math_segments(run, rules) if math[i] else [(_text(run), "")]
        i = j
    return segments


def splice(text: str, segments: list[tuple[str, str]]) -> str:
    """`text` (the line as the text layer reads it) with each math segment's span as `$latex$`."""
    plain = "".join(p for p, _ in segments)
    blocks = difflib.SequenceMatcher(None, plain, text, autojunk=False).get_matching_blocks()
    out, pos, at = [], 0, 0
    for part, latex in segments:
        start, end = at, at + len(part)
        at = end
        if not latex or not part.strip():
            continue
        a, b = _mapped(blocks, start), _mapped(blocks, end)
        a, b = a + _lead(text[a:b]), b - _tail(text[a:b])
        if b > a >= pos:
            out += [text[pos:a], f"${latex}$"]
            pos = b
    return "".join(out) + text[pos:]


def _mapped(blocks, i: int) -> int:
    """Position in the second text of position `i` of the first (between matched blocks: the start of the next)."""
    for a, b, n in blocks:
        if i <= a + n:
            return b + max(0, i - a) if i >= a else b
    return blocks[-1][1] if blocks else 0


def _lead(s: str) -> int:
    return len(s) - len(s.lstrip())


def _tail(s: str) -> int:
    return len(s) - len(s.rstrip())


def _words(glyphs: list[Glyph]) -> list[list[Glyph]]:
    """Glyphs in words: split at spaces and at gaps wider than a fifth of the font size."""
    words: list[list[Glyph]] = [[]]
    for g in glyphs:
        prev = words[-1][-1] if words[-1] else None
        if g.c.isspace() or (prev is not None and g.bbox[0] - prev.bbox[2] > 0.2 * g.size):
            words.append([])
        words[-1].append(g)
    return [w for w in words if w]


def row_kind(glyphs: list[Glyph]) -> str:
    """ "formula" (mathematics only), "part" (digits, letters, operators that may belong to a
    formula: a numerator, a limit), "mixed" (words of text and of mathematics), "text" (words of
    text and no mathematics) or "blank"."""
    words = _words(glyphs)
    if not words:
        return "blank"
    size, baseline = _body(glyphs)
    kinds = [_kind(w, size, baseline) for w in words]
    if "math" not in kinds and _equation_of_letters(words, kinds):
        return "formula"
    if any(k == "text" and any(g.c.isalnum() for g in w) for k, w in zip(kinds, words, strict=True)):
        return "mixed" if "math" in kinds else "text"
    return "formula" if "math" in kinds else "part" if "weak" in kinds else "blank"


def _equation_of_letters(words: list[list[Glyph]], kinds: list[str]) -> bool:
    """A relation between runs of italic letters and nothing else (`PV = nRT`, `V = IR`): a
    formula even where its letters are the text font's italic (mathptmx, mathpple) and its `=`
    the text font's, which no word of it marks as mathematics. Prose has a real word."""
    marks = [[g for g in w if not g.c.isspace()] for w in words]
    relation = [i for i, w in enumerate(marks) if w and all(g.c in _RELATIONS for g in w)]
    if not relation or relation[0] == 0 or relation[-1] == len(marks) - 1:
        return False
    return all(k == "weak" or _italic_run(w) for k, w in zip(kinds, marks, strict=True))


def _italic_run(marks: list[Glyph]) -> bool:
    return 0 < len(marks) <= 4 and all(g.c.isalpha() and g.italic for g in marks)


def _body(glyphs: list[Glyph]) -> tuple[float, float]:
    sizes = Counter(round(g.size, 1) for g in glyphs if not g.c.isspace())
    size = sizes.most_common(1)[0][0] if sizes else 10.0
    bases = Counter(round(g.baseline, 1) for g in glyphs if abs(g.size - size) < 0.1 * size)
    return size, bases.most_common(1)[0][0] if bases else 0.0


def _kind(word: list[Glyph], size: float, baseline: float) -> str:
    """ "math", "weak" (may join a formula beside it) or "text"."""
    marks = [g for g in word if not g.c.isspace()]
    if not marks or _has_real_word(marks) or _marked_word(marks, size, baseline):
        return "text"
    if any(_strong(g, size, baseline) for g in marks):
        return "math"
    if "".join(g.c for g in marks).strip(".,;:()") in _NAMES:  # `cos`, `log`, `(mod` beside a formula
        return "weak"
    if _applied_name(marks):  # `tanh(n)`, `sin(a)`: an operator name applied to its argument
        return "weak"
    italic = [g for g in marks if g.c.isalpha()]  # italic letters, or bold ones (vectors: F = ma)
    if all(g.c in _WEAK or ((g.italic or g.bold) and g.c.isalpha()) for g in marks) and len(italic) <= 2:
        return "weak" if any(g.c not in _TRAIL for g in marks) else "text"
    return "text"


def _applied_name(marks: list[Glyph]) -> bool:
    """An operator name, then `(`, then what may join a formula (italic letters, digits, signs)."""
    text = "".join(g.c for g in marks)
    name = _NAME_CALL.match(text)
    if not name or name[1] not in _NAMES:
        return False
    rest = marks[len(name[1]) :]
    return all(g.c in _WEAK or (g.italic and g.c.isalpha()) for g in rest)


def _strong(g: Glyph, size: float, baseline: float) -> bool:
    if g.c in _NOT_MATH:
        return False
    if mc.MATH_ONLY.search(g.font) or g.c in mc.GREEK or (g.c in mc.SYMBOLS and not g.c.isascii()):
        return True
    if g.c.isalpha() and mc.family(g.font):  # a blackboard, calligraphic or fraktur letter
        return True
    return g.size < 0.9 * size and abs(g.baseline - baseline) > 0.12 * size


def _marked_word(marks: list[Glyph], size: float, baseline: float) -> bool:
    """A word of two upright text letters or more after a raised small mark (`¹In this paper`,
    a footnote's opening word after its number): text, not `I^{1}n`. Mathematics sets its
    letters italic, and its scripts after their base."""
    lead = 0
    while lead < len(marks) and (marks[lead].c.isdigit() or marks[lead].c in _NOTE_MARKS):
        if not (marks[lead].size < 0.9 * size and baseline - marks[lead].baseline > 0.12 * size):
            return False
        lead += 1
    rest = marks[lead:]
    return bool(lead) and len(rest) >= 2 and all(_text_letter(g, size) for g in rest)


def _text_letter(g: Glyph, size: float) -> bool:
    math_font = mc.MATH_ONLY.search(g.font) or mc.family(g.font)
    return g.c.isalpha() and not g.italic and not math_font and g.size >= 0.9 * size


def is_words(glyphs: list[Glyph]) -> bool:
    """A line of text words and no mathematics, a real word among them (a heading, a label)."""
    return row_kind(glyphs) == "text" and _has_real_word([g for g in glyphs if not g.c.isspace()])


def _has_real_word(marks: list[Glyph]) -> bool:
    """Four upright letters or more in a row that are no operator name (`tanh`, `arcsin`)."""
    runs = [""]
    for g in marks:
        upright = g.c.isalpha() and not g.italic and not mc.MATH_ONLY.search(g.font)
        runs[-1] += g.c if upright else ""
        if not upright and runs[-1]:
            runs.append("")
    return any(len(r) >= 4 and r not in mc.FUNCTIONS for r in runs)


def _spread(math: list[bool], weak: list[bool]) -> list[bool]:
    """Weak words next to a formula join it, outward until a text word."""
    out = list(math)
    for order in (range(len(out)), range(len(out) - 1, -1, -1)):
        for i in order:
            if weak[i] and not out[i] and any(0 <= j < len(out) and out[j] for j in (i - 1, i + 1)):
                out[i] = True
    return out


def _math_segments(run: list[Glyph], rules: list[Rule]) -> list[tuple[str, str]]:
    """A formula's glyphs as (plain, latex), sentence punctuation at its end split off as text."""
    k = len(run)
    while k > 0 and (run[k - 1].c in _TRAIL or run[k - 1].c.isspace()) and not mc.MATH_ONLY.search(run[k - 1].font):
        k -= 1
    latex = to_latex(run[:k], rules).strip()
    if not latex:
        return [(_text(run), "")]
    return [(_text(run[:k]), latex)] + ([(_text(run[k:]), "")] if k < len(run) else [])


def _text(glyphs: list[Glyph]) -> str:
    return "".join(g.c for g in glyphs)
