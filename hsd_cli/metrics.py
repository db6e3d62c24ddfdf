"""The metrics (HSD paper, section 4.2), each defined once.

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
