"""LaTeX of a formula rebuilt from its glyphs: baselines, sizes, fonts and horizontal rules.

Read as TeX sets it: a row of base atoms on one baseline; smaller glyphs raised or lowered
after an atom are its scripts; glyphs above and below a big operator are its limits; glyphs
above and below a rule make a fraction; glyphs under a rule that starts at a radical sign are
its radicand (both built in mathstack.py). Coordinates: any one unit (PDF points here), y growing downwards.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

from hsd_cli.datatypes import BBox
from hsd_cli.pages import mathbraces, mathgrid, mathmarks, mathstack, mathtokens
from hsd_cli.pages import mathchars as mc
from hsd_cli.pages.mathglyph import Glyph, Rule, tall, union

__all__ = ["Glyph", "Rule", "is_tag", "split_tag", "tagged", "to_latex"]

_PRIMES = frozenset("′″")
# An opening bracket this many ems after the atom before it is TeX's \\left: an inner atom takes
# a thin space (0.17 em); after an italic letter, on top of its italic correction (lower case at
# most f's 0.11 em, capitals up to V's 0.22 em), after an upright one alone.
SPACED, SPACED_LOWER, SPACED_CAPITAL = 0.12, 0.19, 0.25
BOX_LIFT = 0.03  # ems a box's superscript stands above a character's, at least (see _boxed)
WORD_SPACE = 0.5  # ems between upright letters of one text piece at most (a word space is 0.25-0.33 em)
# A superscript this many ems up is a box's: TeX raises a character's 0.41 em in a display
# (KaTeX 0.38), 0.36 in text; a \right)'s about 0.46-0.5.
BOX_RISE = 0.45
# A gap this many ems wide between two atoms of a row is a `\quad` (1 em), this many a `\qquad`
# (2 em): TeX's own spaces between atoms reach 0.28 em (a relation's), with side bearings 0.4.
QUAD, QQUAD = 0.75, 1.5
_TAG = re.compile(r"^\(([A-Z]?\d+(\.\d+)*[a-z]?[*′']?)\)$")  # (12), (2.4a), an appendix's (A3), (4*)
_LABEL = re.compile(r"\\operatorname\{([A-Za-z]+)\}")  # a script that is one upright word


def to_latex(glyphs: list[Glyph], rules: list[Rule] = ()) -> str:
    """The formula's LaTeX, a trailing equation number as `\\tag{n}`."""
    # Glyphs that draw nothing (spaces, zero-width marks KaTeX sets as struts) take no part.
    # Braces first: TeX's pieces read as letters (`z`) and a brace's rules are no fraction bars.
    glyphs, rules = mathbraces.braced(mathmarks.ellipses(_drawn(glyphs)), list(rules), _row)
    glyphs, tag = split_tag(mathmarks.stacked_relations(mathmarks.negated(glyphs)))
    bars = mathstack.vincula(glyphs, rules)
    glyphs = mathstack.seated(glyphs, bars)
    # Fractions before lines: a bar joins its parts.
    glyphs = mathstack.fractions(glyphs, [r for r in rules if r not in bars], rules, _row)
    rows = mathgrid.lines(glyphs, rules)
    latex = mathgrid.stacked(rows, rules, _row) if len(rows) > 1 else _row(glyphs, rules)
    return tagged(latex, tag)


def _drawn(glyphs: list[Glyph]) -> list[Glyph]:
    return [g for g in glyphs if g.latex or (g.c.strip() and mc.symbol(g.c))]


def tagged(latex: str, tag: str) -> str:
    """A display formula's LaTeX with its equation number, if any, as `\\tag{n}`."""
    return f"{latex} \\tag{{{tag}}}" if tag else latex


def is_tag(glyphs: list[Glyph]) -> bool:
    """Whether the glyphs read as an equation number alone, like `(12)`."""
    return bool(_TAG.match("".join(g.c for g in glyphs if g.c.strip())))


def split_tag(glyphs: list[Glyph]) -> tuple[list[Glyph], str]:
    """(glyphs, number) when the formula ends in an equation number like `(12)` set well apart."""
    ordered = sorted(glyphs, key=lambda g: g.bbox[0])
    for k in range(3, min(len(ordered), 9) + 1):
        tail, head = ordered[-k:], ordered[:-k]
        match = _TAG.match("".join(g.c for g in tail))
        if match and head and tail[0].bbox[0] - max(g.bbox[2] for g in head) > 1.5 * tail[0].size:
            return head, match[1]
    return glyphs, ""


def _row(items: list[Glyph], rules: list[Rule]) -> str:
    if not items:
        return ""
    items = mathgrid.matrices(items, rules, _row)
    bars = mathstack.vincula(items, rules)
    items = mathstack.fractions(items, [r for r in rules if r not in bars], rules, _row)
    items = mathmarks.accented(mathstack.radicals(items, bars, rules, _row), _atom)
    size = max((g.size for g in items if not _is_big(g)), default=items[0].size)
    baseline = _baseline(items, size)
    primes = [g for g in items if g.c in _PRIMES] if len(items) > 1 else []
    bases = sorted((g for g in items if _is_base(g, baseline, size) and g not in primes), key=lambda g: g.bbox[0])
    satellites = [g for g in items if not _is_base(g, baseline, size) and g not in primes]
    # Limits sit under or over a big operator or an operator name (`\\lim`, `\\max`) in a display.
    runs = [run for run, _ in _words(bases, {}) if run[0].c in mc.BIG_OPERATORS or len(run) > 1]
    limits = {id(run[0]): _limits(union(run), satellites) for run in runs}
    claimed = {id(g) for lo, hi in limits.values() for g in lo + hi}
    rest = [g for g in satellites if id(g) not in claimed] + primes
    scripts = _scripts(bases, rest, baseline, size, [lst for pair in limits.values() for lst in pair])
    tokens, apart, gaps, right, spaced, built = [], [], [], float("-inf"), SPACED, True
    words = _words(bases, scripts)
    for run, attached in words:
        lo, hi = limits.get(id(run[0]), ([], []))
        tokens.append(_atom(run) + _scripted(lo + attached[0], hi + attached[1], rules))
        # Between glyphs only: a stacked piece's box (a matrix, a fraction) is no glyph's advance.
        gaps.append(0.0 if built or _stacked(run[0]) else (run[0].bbox[0] - right) / run[0].size)
        built = _stacked(run[-1])
        apart.append(run[0].bbox[0] - right >= spaced * run[0].size)
        right = max(g.bbox[2] for g in run + lo + hi + attached[0] + attached[1])
        spaced = _spacing(run[-1]) if not (attached[0] or attached[1]) else SPACED
    stretched = [len(run) == 1 and not run[0].latex and tall(run[0]) for run, _ in words]
    return mathtokens.joined(*_quads(gaps, tokens, apart, _boxed(words), stretched))


def _stacked(g: Glyph) -> bool:
    """A piece built of several glyphs and rules (an accented letter keeps its letter's box)."""
    return bool(g.latex) and not g.latex.startswith((*mc.ACCENTS.values(), "\\hbar"))


def _quads(gaps: list[float], *lists: list) -> tuple[list, ...]:
    """The row's per-atom lists with a `\\quad` or `\\qquad` atom before each atom set that
    far from the one before (`\\dot{q}=a,\\quad\\dot{p}=b`): a space is no glyph of the page."""
    out: tuple[list, ...] = tuple([] for _ in lists)
    for i, gap in enumerate(gaps):
        if i and gap >= QUAD:
            for lst, value in zip(out, ("\\qquad" if gap >= QQUAD else "\\quad", False, False, False), strict=True):
                lst.append(value)
        for lst, source in zip(out, lists, strict=True):
            lst.append(source[i])
    return out


def _boxed(words: list[tuple[list[Glyph], tuple[list, list]]]) -> list[bool]:
    """Per word: a closing bracket whose superscript stands higher than one on a character of
    the row. TeX raises a character's superscript by a fixed amount, a box's (a `\\left..\\right`
    group) by the box's height less a drop: 0.05-0.07 em higher in Computer Modern and KaTeX."""
    lifts = [_lift(run, sub, sup) for run, (sub, sup) in words]
    chars = [lift for (run, _), lift in zip(words, lifts, strict=True) if lift and run[0].c not in mc.CLOSERS]
    out = []
    for (run, _), lift in zip(words, lifts, strict=True):
        like = [c[0] for c in chars if lift and abs(c[1] - lift[1]) <= 0.1 * lift[1]]  # scripts of one size
        least = min(like) + BOX_LIFT if like else BOX_RISE  # no character's to compare: TeX's own rises
        out.append(bool(lift) and run[0].c in mc.CLOSERS and lift[0] > least)
    return out


def _lift(run: list[Glyph], sub: list[Glyph], sup: list[Glyph]) -> tuple[float, float] | None:
    """(rise in ems, size) of a lone glyph's superscript, when it has no subscript (TeX moves a
    superscript up to clear a subscript); None for a big operator's (set as on a box)."""
    if len(run) != 1 or run[0].latex or _is_big(run[0]) or sub or not sup:
        return None
    size = max(g.size for g in sup)
    foot = max(g.baseline for g in sup if g.size >= 0.9 * size)
    return (run[0].baseline - foot) / run[0].size, size


def _spacing(g: Glyph) -> float:
    if not g.italic:
        return SPACED
    return SPACED_LOWER if g.c.islower() else SPACED_CAPITAL


def _baseline(items: list[Glyph], size: float) -> float:
    """The row's baseline: where most of its full-size glyphs sit."""
    votes = Counter(round(g.baseline * 2) / 2 for g in items if g.size >= 0.85 * size and not _is_big(g))
    if not votes:
        votes = Counter(round(g.baseline * 2) / 2 for g in items)
    return votes.most_common(1)[0][0]


def _is_big(g: Glyph) -> bool:
    return g.big or g.c in mc.BIG_OPERATORS


def _is_base(g: Glyph, baseline: float, size: float) -> bool:
    if _is_big(g) or g.latex:
        return True
    shift = abs(g.baseline - baseline)
    # A much smaller glyph is a script even when barely shifted (KaTeX's subscript in a superscript).
    return (shift <= 0.08 * size and g.size >= 0.8 * size) or (g.size >= 0.85 * size and shift <= 0.3 * size)


def _limits(box: BBox, satellites: list[Glyph]) -> tuple[list[Glyph], list[Glyph]]:
    """(below, above) an operator's box: glyphs over or under it, and those set in line with them."""
    height = box[3] - box[1]
    lower = [g for g in satellites if _overlaps(box, g.bbox) and g.baseline > box[3] - 0.1 * height]
    upper = [g for g in satellites if _overlaps(box, g.bbox) and g.baseline < box[1] + 0.3 * height]
    return _grow(lower, satellites), _grow(upper, satellites)


def _grow(seed: list[Glyph], pool: list[Glyph]) -> list[Glyph]:
    """The seed and every glyph joined to it side by side (small gap, shared height)."""
    group = list(seed)
    changed = bool(group)
    while changed:
        box = union(group)
        more = [g for g in pool if g not in group and _beside(box, g)]
        group += more
        changed = bool(more)
    return group


def _beside(box: BBox, g: Glyph) -> bool:
    gap = max(box[0] - g.bbox[2], g.bbox[0] - box[2])
    shared = min(box[3], g.bbox[3]) - max(box[1], g.bbox[1])
    return gap <= 0.45 * g.size and shared > 0.3 * (g.bbox[3] - g.bbox[1])


def _overlaps(a: BBox, b: BBox) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0


def _scripts(
    bases: list[Glyph], rest: list[Glyph], baseline: float, size: float, limits: list[list[Glyph]]
) -> dict[int, tuple[list, list]]:
    """Per base item (by id): the glyphs lowered (subscript) and raised (superscript) after it."""
    out: dict[int, tuple[list, list]] = {}
    # Primes last: a prime is a superscript of the glyph before it, whatever its baseline says.
    for g in sorted(rest, key=lambda g: g.c in _PRIMES):
        home = _prime_home(g, [lst for pair in out.values() for lst in pair] + limits) if g.c in _PRIMES else None
        if home is not None:
            home.append(g)
            continue
        before = [b for b in bases if b.bbox[0] < g.cx - 0.1 * g.size]
        owner = before[-1] if before else (bases[0] if bases else None)
        if owner is None:
            continue
        sub, sup = out.setdefault(id(owner), ([], []))
        raised = g.c in _PRIMES or g.baseline < baseline - 0.1 * size
        (sup if raised else sub).append(g)
    return out


def _prime_home(prime: Glyph, lists: list[list[Glyph]]) -> list | None:
    """The script or limit holding the glyph just left of a prime: `g'` inside a subscript stays there."""
    placed = [(g, lst) for lst in lists for g in lst if g.c not in _PRIMES]
    left = [(g, lst) for g, lst in placed if g.bbox[2] <= prime.cx and prime.bbox[0] - g.bbox[2] < 0.3 * g.size]
    return max(left, key=lambda p: p[0].bbox[2])[1] if left else None


def _words(bases: list[Glyph], scripts: dict) -> list[tuple[list[Glyph], tuple[list, list]]]:
    """Base items in runs: upright letters set together form one word (`Ann`, `sin`)."""
    runs: list[list[Glyph]] = []
    for g in bases:
        prev = runs[-1][-1] if runs else None
        joined = prev is not None and _upright(prev) and _upright(g) and id(prev) not in scripts
        # a word space (a third of an em) joins words too: `\\text{for all}` is one piece of text
        if joined and g.bbox[0] - prev.bbox[2] < WORD_SPACE * g.size:
            runs[-1].append(g)
            continue
        runs.append([g])
    return [(run, scripts.get(id(run[-1]), ([], []))) for run in runs]


def _upright(g: Glyph) -> bool:
    return len(g.c) == 1 and g.c.isascii() and g.c.isalpha() and not g.italic and not mc.family(g.font)


def _atom(run: list[Glyph]) -> str:
    words = _split(run) if len(run) > 1 else []
    if len(words) > 1:  # words in a formula (`\\text{for all}`), or one operator of two (`arg max`)
        op = all(w in mc.FUNCTIONS for w in words)
        return "\\operatorname*{" + "\\,".join(words) + "}" if op else "\\text{" + " ".join(words) + "}"
    if len(run) > 1:
        word = "".join(g.c for g in run)
        return f"\\{word}" if word in mc.FUNCTIONS else f"\\operatorname{{{word}}}"
    g = run[0]
    if g.latex:
        return g.latex
    if g.big and g.c and g.c in mc.OPENERS + mc.CLOSERS:
        side = "\\left" if g.c in mc.OPENERS and g.c not in "|‖" else "\\right"
        return f"{side}{mc.symbol(g.c)}"
    text = mc.symbol(g.c)
    alphabet = mc.family(g.font) if g.c.isascii() and g.c.isalpha() else ""
    if g.bold and (g.c.isalnum() or text != g.c):
        return f"\\boldsymbol{{{text}}}" if text.startswith("\\") else f"\\mathbf{{{text}}}"
    return f"{alphabet}{{{text}}}" if alphabet else text


def _split(run: list[Glyph]) -> list[str]:
    """A run of upright letters in words, cut where a gap of a sixth of an em or more stands."""
    words = [run[0].c]
    for a, b in itertools.pairwise(run):
        if b.bbox[0] - a.bbox[2] >= 0.15 * b.size:
            words.append("")
        words[-1] += b.c
    return words


def _scripted(sub: list[Glyph], sup: list[Glyph], rules: list[Rule]) -> str:
    out = f"_{{{_script(sub, rules)}}}" if sub else ""
    return out + (f"^{{{_script(sup, rules)}}}" if sup else "")


def _script(glyphs: list[Glyph], rules: list[Rule]) -> str:
    """A script's LaTeX; a script that is one upright word is a label (`D_{\\mathrm{KL}}`,
    `T_{\\mathrm{eff}}`), not an operator as a word with an argument is (`\\operatorname{Ann}_{R}(x)`)."""
    latex = _row(glyphs, rules)
    word = _LABEL.fullmatch(latex)
    return f"\\mathrm{{{word[1]}}}" if word else latex
