"""Runaway repetition: where a row's loop began, and the draft's rest spliced after its last good tokens.

Document parsers fall into loops on repetitive structure (tables, formulas): the "repetition
hallucination" of the HSD paper, appendix A (after Xu et al. 2022, "Learning to break the loop").
The repeat guard (spec/stop.py) stops such a row; with `--on-loop draft` the row's looping tail is
cut after the loop's first period and the rest of its draft is appended from the draft position
that best matches the last kept tokens. Pure functions over token lists: no model, no torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MIN_MATCH = 3  # tokens the kept tail and the draft must share to place the splice (paper: n = 3)
MAX_MATCH = 32  # longer shared tails rank no higher: bounds the work per draft position


@dataclass(frozen=True, slots=True)
class Loop:
    """A periodic tail: tokens[start:] repeats with `period` tokens (the last one may be partial)."""

    start: int
    period: int

    @property
    def keep(self) -> int:
        """Tokens kept: everything before the loop plus its first period."""
        return self.start + self.period


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where the kept tokens end in the drafts: drafts[draft][pos:] is the rest to append."""

    draft: int
    pos: int
    length: int  # tokens of the kept tail matched just before pos


@dataclass(frozen=True, slots=True)
class Repair:
    tokens: list[int]  # kept tokens + the drafts' rest
    loop: Loop
    anchor: Anchor | None  # None: no draft position matched, the tail is only cut


def find_loop(tokens: Sequence[int], span: int) -> Loop | None:
    """The loop the repeat guard sees (last `span` tokens, period <= span // 8), traced to its start."""
    n = len(tokens)
    if n < span + 1:
        return None
    for period in range(1, span // 8 + 1):
        first = n - span - period  # the guard's test: tokens[i] == tokens[i + period] from here on
        if all(tokens[i] == tokens[i + period] for i in range(first, n - period)):
            while first > 0 and tokens[first - 1] == tokens[first - 1 + period]:
                first -= 1
            return Loop(first, period)
    return None


def find_anchor(
    kept: Sequence[int], drafts: Sequence[Sequence[int]], ordered: bool, min_match: int = MIN_MATCH
) -> Anchor | None:
    """The draft position after the longest match of kept's tail (at least min_match tokens).

    Ties go to the position nearest len(kept): a faithful output advances through its draft about
    token for token, so a repeated phrase is placed where the row most likely was. `ordered`
    drafts are one sequence (positions add up across them); otherwise they are alternatives.
    """
    best: tuple[int, int] | None = None  # (-length, distance): smaller is better
    anchor = None
    offset = 0
    for d, draft in enumerate(drafts):
        for pos in range(min_match, len(draft) + 1):
            length = _shared_tail(kept, draft, pos)
            if length >= min_match:
                key = (-length, abs(offset + pos - len(kept)))
                if best is None or key < best:
                    best, anchor = key, Anchor(d, pos, length)
        offset += len(draft) if ordered else 0
    return anchor


def splice(
    kept: Sequence[int], drafts: Sequence[Sequence[int]], anchor: Anchor, ordered: bool, sep: Sequence[int] = ()
) -> list[int]:
    """kept + the anchor draft's rest (+ every later draft, joined by sep, when `ordered`)."""
    out = list(kept) + list(drafts[anchor.draft][anchor.pos :])
    for draft in drafts[anchor.draft + 1 :] if ordered else ():
        if draft:
            out += [*sep, *draft]
    return out


def repair_loop(
    tokens: Sequence[int],
    drafts: Sequence[Sequence[int]],
    span: int,
    *,
    ordered: bool,
    sep: Sequence[int] = (),
) -> Repair | None:
    """A looping row's tokens with the loop cut after its first period and the drafts' rest
    appended; None when the row does not loop."""
    loop = find_loop(tokens, span)
    if loop is None:
        return None
    kept = list(tokens[: loop.keep])
    anchor = find_anchor(kept, drafts, ordered)
    out = kept if anchor is None else splice(kept, drafts, anchor, ordered, sep)
    return Repair(out, loop, anchor)


def _shared_tail(kept: Sequence[int], draft: Sequence[int], pos: int) -> int:
    """How many of kept's last tokens equal draft[:pos]'s last tokens (at most MAX_MATCH)."""
    n = 0
    limit = min(MAX_MATCH, len(kept), pos)
    while n < limit and kept[-1 - n] == draft[pos - 1 - n]:
        n += 1
    return n
