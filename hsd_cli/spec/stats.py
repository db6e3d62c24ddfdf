"""Decode statistics, accumulated in one place."""

from __future__ import annotations

from dataclasses import dataclass, field

from hsd_cli.datatypes import aal


@dataclass(slots=True)
class DecodeStats:
    steps: int = 0  # target forward passes in the decode loop (prefill excluded)
    drafted: int = 0  # draft nodes offered to the target, summed over steps
    accepted_hist: list[int] = field(default_factory=list)  # accepted draft tokens per step

    def observe_step(self, num_drafted: int, num_accepted: int) -> None:
        self.steps += 1
        self.drafted += num_drafted
        self.accepted_hist.append(num_accepted)

    @property
    def accepted(self) -> int:
        return sum(self.accepted_hist)

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.steps)


@dataclass(frozen=True, slots=True)
class GiveUp:
    """Cut a row whose drafts give fewer than `aal` tokens per step after `steps` steps.

    A record rather than a callback, so the loop never calls back into the method that asked."""

    steps: int
    aal: float

    def __call__(self, stats: DecodeStats, tokens: int) -> bool:
        return stats.steps >= self.steps and stats.aal < self.aal
