"""A decode row's statistics, when speculation was effectively off, and when a batch stops.

The metrics themselves (AAL, SR_steps, SR_decode, SR_e2e) are defined once, in hsd_cli/metrics.py.
Counts: a row's `steps` are its sequence-steps (a batched forward is one step of each of its rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hsd_cli.metrics import aal


def drafted_per_step(drafted: int, seq_steps: int) -> float:
    """Draft tokens (tree nodes below the root) sent to the target per sequence-step (0.0 without steps)."""
    return drafted / seq_steps if seq_steps else 0.0


# Below this many draft tokens per sequence-step, a page that had drafts ran as plain AR: its
# trees were (nearly) the root alone. One 4-node exploration every 8 steps already gives 0.5.
SPEC_OFF_DRAFTED = 0.1


def speculation_off(drafted: int, matched: int, seq_steps: int) -> str:
    """Why speculation was effectively off on decode steps that had drafts ("" when it was on)."""
    per_step = drafted_per_step(drafted, seq_steps)
    if not seq_steps or per_step >= SPEC_OFF_DRAFTED:
        return ""
    if matched < SPEC_OFF_DRAFTED * seq_steps:
        return f"{per_step:.2f} draft tokens per step: the drafts matched the output on {matched} of {seq_steps} steps"
    return (
        f"{per_step:.2f} draft tokens per step: trees were cut to the root although the drafts matched on "
        f"{matched} of {seq_steps} steps (the cost curve priced trees above their expected acceptance)"
    )


@dataclass(slots=True)
class DecodeStats:
    """One row's statistics, updated as it decodes (a row's steps are its sequence-steps)."""

    steps: int = 0  # this row's verification steps in the decode loop (prefill excluded)
    drafted: int = 0  # draft nodes offered to the target, summed over steps
    accepted_hist: list[int] = field(default_factory=list)  # accepted draft tokens per step
    matched: int = 0  # steps on which the row had a draft candidate (whether or not its tree kept it)
    ran_out: bool = False  # the last step accepted a whole branch of its tree: the draft held, nothing was corrected

    def observe_step(self, num_drafted: int, num_accepted: int, matched: bool = False, ran_out: bool = False) -> None:
        self.steps += 1
        self.drafted += num_drafted
        self.accepted_hist.append(num_accepted)
        self.matched += matched
        self.ran_out = ran_out

    @property
    def accepted(self) -> int:
        return sum(self.accepted_hist)

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.steps)


@dataclass(frozen=True, slots=True)
class BatchStop:
    """Stop a batch of region rows once its running rows no longer pay for a batched step.

    A Stage-1 step moves each running row on by (1 + its AAL) tokens that Stage 2 then takes from
    an exact draft instead of verifying them against the page draft, where the same draft gives
    about the same acceptance: so the step saves about `saving` Stage-2 steps per running row that
    corrected its draft. A row whose step accepted a whole branch of its tree (`ran_out`) saved
    nothing: Stage 2 would have accepted the same draft tokens in one step too.
    `prices[n - 1]` is what a batched step of n rows costs, in page steps. A record rather than
    a callback, so the loop never calls back into the method that asked.
    """

    prices: tuple[float, ...]
    saving: float
    warmup: int = 2  # steps before the first judgement: the rows' first steps find their windows

    def price(self, rows: int) -> float:
        """A batched step of `rows` rows, in page steps."""
        return self.prices[min(rows, len(self.prices)) - 1]

    def pays(self, rows: int, correcting: int | None = None) -> bool:
        """A batched step of `rows` running rows, `correcting` of them (all by default) still
        correcting their drafts, saves more than it costs."""
        saving = self.saving * (rows if correcting is None else correcting)
        return rows > 0 and saving > self.price(rows)

    def __call__(self, running: list[DecodeStats]) -> bool:
        correcting = sum(not r.ran_out for r in running)
        return bool(running) and running[0].steps >= self.warmup and not self.pays(len(running), correcting)
