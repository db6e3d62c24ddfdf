"""Stopping rules shared by every method, so spec and AR stop at the same token."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class StopReason(str, Enum):
    NONE = ""
    EOS = "eos"
    BUDGET = "budget"
    REPEAT = "repeat"
    CUT = "cut"  # Stage 1 stopped the row: more of it did not pay (never a page's stop)


@dataclass(frozen=True, slots=True)
class StopRule:
    eos_ids: frozenset[int]
    max_new_tokens: int
    repeat_guard: int = 0  # stop when the last this-many tokens are periodic (0 = off)

    def check(self, tokens: list[int]) -> StopReason:
        """Reason to stop right after the last token of `tokens`, if any."""
        if tokens and tokens[-1] in self.eos_ids:
            return StopReason.EOS
        if len(tokens) >= self.max_new_tokens:
            return StopReason.BUDGET
        if self.repeat_guard and _is_looping(tokens, self.repeat_guard):
            return StopReason.REPEAT
        return StopReason.NONE

    def extend(self, tokens: list[int], new: list[int], limit: int | None = None) -> StopReason:
        """Append `new` to `tokens` up to the first token `check` stops after (or that makes
        `limit` tokens: BUDGET, after the rule's own reasons); the reason, NONE if none."""
        # check()'s tests after each token in one frame (a pass appends a row's accepted tokens
        # here), the loop's only where the token occurred among the last periods.
        eos, span, budget = self.eos_ids, self.repeat_guard, self.max_new_tokens
        periods = span // 8
        for tok in new:
            tokens.append(tok)
            n = len(tokens)
            if tok in eos:
                return StopReason.EOS
            if n >= budget:
                return StopReason.BUDGET
            if span and n > span and tok in tokens[-1 - periods : -1] and _is_looping(tokens, span):
                return StopReason.REPEAT
            if limit is not None and n >= limit:
                return StopReason.BUDGET
        return StopReason.NONE


def _is_looping(tokens: list[int], span: int) -> bool:
    """True if the last `span` tokens repeat with a period of at most span // 8."""
    if len(tokens) < span + 1:
        return False
    last, periods = tokens[-1], span // 8
    recent = tokens[-1 - periods : -1]  # recent[j] is tokens[-1 - p] for the period p = periods - j
    head = min(8, span)  # a few tokens first: most periods fail there, before a slice of `span`
    j = -1
    for _ in range(recent.count(last)):  # only periods p with tokens[-1 - p] == last can hold
        j = recent.index(last, j + 1)
        p = periods - j
        if tokens[-head:] == tokens[-head - p : -p] and tokens[-span:] == tokens[-span - p : -p]:
            return True
    return False
