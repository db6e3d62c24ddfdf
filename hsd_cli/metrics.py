"""The metrics (HSD paper, section 4.2), each defined once, and the records' properties built on them.

Every report (page JSON, run summaries, progress, `hsd bench`) computes its metrics with these
functions from the counts and times it stored; a time is never rebuilt from a ratio.
Counts: `steps` are target forward passes (a batched forward counts once); `seq_steps` are
sequence-steps (a batched forward is one step of each of its rows), AAL's denominator.
Standard library only: the records (datatypes.py) and the speculative core (spec/) both use it.
"""

from __future__ import annotations


def aal(accepted: int, seq_steps: int) -> float:
    """AAL: accepted draft tokens per sequence-step; the bonus token is not counted, a fully
    rejected step counts 0, and a batched forward is one step of each of its rows (0.0 without steps).
    """
    return accepted / seq_steps if seq_steps else 0.0


def sr_steps(steps_ar: int, steps: int) -> float | None:
    """SR_steps = AR forward passes / the method's forward passes (None without passes)."""
    return steps_ar / steps if steps > 0 else None


def decode_time(t_draft: float, t_decode: float) -> float:
    """T_decode of a method: draft generation plus every decode loop (Stage 1 and 2), no prefill."""
    return t_draft + t_decode


def full_time(t_draft: float, t_prefill: float, t_decode: float) -> float:
    """T_full of a method: page image in -> tokens out (drafts, every prefill, every decode loop)."""
    return t_draft + t_prefill + t_decode


def sr_decode(t_decode_ar: float, t_decode_spec: float) -> float | None:
    """SR_decode = T_decode(AR) / T_decode(spec), where the spec side includes draft generation
    (`decode_time`); None when the spec side took no time."""
    return t_decode_ar / t_decode_spec if t_decode_spec > 0 else None


def sr_e2e(t_full_ar: float, t_full_spec: float) -> float | None:
    """SR_e2e = T_full(AR) / T_full(spec) (`full_time`); None when the spec side took no time."""
    return t_full_ar / t_full_spec if t_full_spec > 0 else None


class Ratios:
    """AAL and the three speedups of a record, each computed from the counts and times it stores.

    The record has `accepted` and `seq_steps`, and each speedup's two sides: `steps_ar` and
    `steps_spec`, `t_decode_ar` and `t_decode_spec`, `t_total_ar` and `t_total_spec`. An AR side
    of None means no AR baseline ran: that speedup is None.
    """

    __slots__ = ()

    def _ar(self, value: float | None) -> float | None:
        return value

    @property
    def aal(self) -> float:
        return aal(self.accepted, self.seq_steps)

    @property
    def sr_steps(self) -> float | None:
        ar = self._ar(self.steps_ar)
        return None if ar is None else sr_steps(ar, self.steps_spec)

    @property
    def sr_decode(self) -> float | None:
        ar = self._ar(self.t_decode_ar)
        return None if ar is None else sr_decode(ar, self.t_decode_spec)

    @property
    def sr_e2e(self) -> float | None:
        ar = self._ar(self.t_total_ar)
        return None if ar is None else sr_e2e(ar, self.t_total_spec)


class SummedRatios(Ratios):
    """Ratios of totals over pages: ratios of summed times, not means of per-page ratios. The
    *_spec and *_ar sums cover only the `baseline_pages` where AR ran too, so each speedup compares
    the same pages (None when there were none)."""

    __slots__ = ()

    def _ar(self, value: float | None) -> float | None:
        return value if self.baseline_pages else None
