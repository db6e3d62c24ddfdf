"""A method's row request (methods/base.RowsRequest) on the target: its prefill, its rows decoded
on their own, and what decoding them cost; driver/batch.py decodes several requests together."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import StageReport
from hsd_cli.methods.base import RowsDone, RowsRequest, join
from hsd_cli.methods.cost import run_cost
from hsd_cli.methods.crops import CropOutOfMemory
from hsd_cli.spec.align import TokenDrafts
from hsd_cli.spec.decode import DecodeOptions, RowResult, SpecStepper, TargetSession
from hsd_cli.spec.stop import StopRule
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.costs import sync
from hsd_cli.targets.runtime.memory import is_oom, release


@dataclass(frozen=True, slots=True)
class Prefilled:
    """A request's rows after their prefill: ready to join a running batch."""

    session: TargetSession
    first: torch.Tensor  # [B, V] first-token logits
    drafts: TokenDrafts  # per row; empty lists for AR rows
    cfg: SpecConfig
    rule: StopRule
    opts: DecodeOptions
    t_prefill: float


def prefill(target: VisionTarget, request: RowsRequest) -> Prefilled:
    """Prefill a request's rows (device-synced timing) with the loop settings they decode by."""
    spec, drafts = request.spec, request.drafts
    rule = StopRule(target.eos_ids, spec.max_new_tokens, spec.repeat_guard)
    sync(target.device)
    t0 = time.perf_counter()
    session, first = target.prefill(list(request.images), request.prompt)
    sync(target.device)
    t_prefill = time.perf_counter() - t0
    if drafts is None:  # AR: the same loop with no drafts
        cfg = SpecConfig(window=1, max_new_tokens=spec.max_new_tokens)
        opts = DecodeOptions(penalty=target.repetition_penalty, prompts=session.prompt_ids, own=False)
        return Prefilled(session, first, [[] for _ in request.images], cfg, rule, opts, t_prefill)
    opts = DecodeOptions(
        request.starts,
        target.boundary_ids,
        run_cost(target, spec) if spec.cost_aware else None,
        target.repetition_penalty,
        session.prompt_ids,
        request.batch_stop,
        request.prior,
        limits=request.limits,
        prices=target.pass_prices,
    )
    return Prefilled(session, first, list(drafts), spec, rule, opts, t_prefill)


def decode_rows(target: VisionTarget, request: RowsRequest) -> RowsDone:
    """One request's rows decoded alone (out of memory in a batch, halves of region crops)."""
    p = prefill(target, request)
    stepper = SpecStepper()
    stepper.add(p.session, p.first, p.drafts, p.cfg, p.rule, p.opts)
    t0, steps = time.perf_counter(), 0
    while not stepper.done:
        stepper.step()
        steps += 1
    sync(target.device)
    rows = stepper.results()
    return RowsDone(tuple(rows), stage_report(rows, steps, p.t_prefill, time.perf_counter() - t0))


def serve(target: VisionTarget, request: RowsRequest) -> RowsDone:
    """The request's rows; out of memory, region crops are retried in halves."""
    try:
        return decode_rows(target, request)
    except Exception as e:
        if not (request.split_on_oom and is_oom(e)):
            raise
    release()  # here, not in the handler: the failed batch's tensors went with its frames
    if len(request.images) == 1:
        raise CropOutOfMemory
    first, second = request.halves()
    a, b = serve(target, first), serve(target, second)
    return RowsDone(a.rows + b.rows, join(a.report, b.report))


def stage_report(rows: list[RowResult], steps: int, t_prefill: float, t_decode: float) -> StageReport:
    """What decoding a request's rows took: `steps` forward passes it took part in."""
    return StageReport(
        steps=steps,
        tokens=sum(len(r.tokens) for r in rows),
        accepted=sum(r.stats.accepted for r in rows),
        t_prefill=t_prefill,
        t_decode=t_decode,
        regions=len(rows),
        accepted_hist=[a for r in rows for a in r.stats.accepted_hist],
        drafted=sum(r.stats.drafted for r in rows),
        matched=sum(r.stats.matched for r in rows),
    )
