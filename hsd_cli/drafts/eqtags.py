"""Equation numbers on page images: an OCR line `(13)` at the right of a display equation.

OCR reads an equation number as a line of its own; the layout model's formula box often leaves
it out. Left alone it becomes an orphan paragraph (`(13) (14)`, numbers of stacked equations
grouped together). A number belongs to the equation it stands beside: the formula box its
middle lies in vertically, to its left, or else the line on its row to its left. A formula
box with several numbers holds several equations, each written as its own display with
`\\tag{n}` (as formula.py writes numbered equations from a text layer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from hsd_cli.datatypes import BBox, TextSpan
from hsd_cli.drafts.fractions import in_display
from hsd_cli.pages import geometry as geo
from hsd_cli.pages.formula import tagged

_TAG = re.compile(r"^[(（]\s*(\d+(?:\.\d+)*[a-z]?)\s*[)）]$")


@dataclass(frozen=True, slots=True)
class Equation:
    """One display equation: its formula lines and the line of its number, if any."""

    lines: tuple[TextSpan, ...]
    number: TextSpan | None = None

    @property
    def tag(self) -> str:
        return tag_of(self.number) if self.number else ""

    @property
    def bbox(self) -> BBox:
        return geo.union_box([s.bbox for s in (*self.lines, *([self.number] if self.number else []))])

    @property
    def latex(self) -> str:
        """The formula's text with its number as `\\tag{n}`, as the drafts write numbered displays."""
        return tagged(in_display(geo.join_lines(list(self.lines))), self.tag)


def tag_of(line: TextSpan) -> str:
    """The number of a line that is only an equation number, like `(13)` or `(2.4a)`; else ""."""
    match = _TAG.match(line.text.strip())
    return match[1] if match else ""


def claim_tags(formulas: list[BBox], lines: list[TextSpan]) -> tuple[list[list[TextSpan]], list[TextSpan]]:
    """Move each equation number among `lines` to the formula box at its height.

    Returns (numbers per formula box, the other lines). A number beside no formula box stays on
    its row: it is glued after the line to its left, so it never stands alone.
    """
    claimed: list[list[TextSpan]] = [[] for _ in formulas]
    rest = [s for s in lines if not tag_of(s)]
    for tag in (s for s in lines if tag_of(s)):
        home = _formula_at(tag.bbox, formulas)
        if home >= 0:
            claimed[home].append(tag)
        else:
            rest = _glue_to_row(tag, rest)
    return claimed, rest


def split_equations(lines: list[TextSpan]) -> list[Equation]:
    """A formula box's lines as equations: each number takes the formula rows nearest to it."""
    tags = sorted((s for s in lines if tag_of(s)), key=lambda s: s.bbox[1])
    formula = [s for s in lines if not tag_of(s)]
    if not tags:
        return [Equation(tuple(formula))] if formula else []
    parts: list[list[TextSpan]] = [[] for _ in tags]
    for line in formula:
        mid = _middle(line.bbox)
        parts[min(range(len(tags)), key=lambda k: abs(_middle(tags[k].bbox) - mid))].append(line)
    # A number with no formula rows of its own (misread layout) still belongs to the equation above.
    equations: list[Equation] = []
    for tag, part in zip(tags, parts, strict=False):
        if part:
            equations.append(Equation(tuple(part), tag))
        elif equations and not equations[-1].tag:
            equations[-1] = replace(equations[-1], number=tag)
    return equations


def _formula_at(tag: BBox, formulas: list[BBox]) -> int:
    """Index of the formula box left of `tag` whose height holds the tag's middle, else -1."""
    mid = _middle(tag)
    hits = [i for i, f in enumerate(formulas) if f[1] <= mid <= f[3] and f[0] < tag[0]]
    return min(hits, key=lambda i: tag[0] - formulas[i][2], default=-1)


def _glue_to_row(tag: TextSpan, lines: list[TextSpan]) -> list[TextSpan]:
    row = [s for s in lines if geo.same_row(s.bbox, tag.bbox) and s.bbox[2] <= tag.bbox[0]]
    if not row:
        return [*lines, tag]
    left = max(row, key=lambda s: s.bbox[2])
    glued = replace(left, text=f"{left.text} {tag.text}", bbox=geo.union_box([left.bbox, tag.bbox]))
    return [glued if s is left else s for s in lines]


def _middle(b: BBox) -> float:
    return (b[1] + b[3]) / 2
