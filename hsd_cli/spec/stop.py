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


def _is_looping(tokens: list[int], span: int) -> bool:
    """True if the last `span` tokens repeat with a period of at most span // 8."""
    if len(tokens) < span + 1:
        return False
    last, periods = tokens[-1], span // 8
    if last not in tokens[-1 - periods : -1]:  # no period p with tokens[-1 - p] == last: one C-level scan
        return False
    tail = tokens[-span:]
    return any(tokens[-1 - p] == last and tail == tokens[-span - p : -p] for p in range(1, periods + 1))
