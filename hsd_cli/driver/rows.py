"""A method's row request (methods/base.RowsRequest) on the target: its prefill, its rows decoded
on their own, and what decoding them cost; driver/batch.py decodes several requests together."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import torch

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import StageReport
from hsd_cli.driver.ahead import InputsAhead
from hsd_cli.driver.priors import prior_for
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


def prefill(target: VisionTarget, request: RowsRequest, ahead: InputsAhead | None = None) -> Prefilled:
    """Prefill a request's rows (device-synced timing, a wait for inputs made `ahead` included)
    with the loop settings they decode by."""
    rule = StopRule(target.eos_ids, request.spec.max_new_tokens, request.spec.repeat_guard)
    sync(target.device)
    t0 = time.perf_counter()
    inputs = ahead.take(request) if ahead is not None else None
    images = list(request.images)
    if inputs is None:
        session, first = target.prefill(images, request.prompt)
    else:
        session, first = target.prefill(images, request.prompt, inputs)
    sync(target.device)
    t_prefill = time.perf_counter() - t0
    drafts, cfg, opts = loop_settings(target, request, session.prompt_ids)
    return Prefilled(session, first, drafts, cfg, rule, opts, t_prefill)


def loop_settings(
    target: VisionTarget, request: RowsRequest, prompts: list[list[int]] | None
) -> tuple[TokenDrafts, SpecConfig, DecodeOptions]:
    """The rows' drafts and the loop settings they decode by; `prompts`: the rows' prompt ids."""
    spec, drafts = request.spec, request.drafts
    if drafts is None:  # AR: the same loop with no drafts
        cfg = SpecConfig(window=1, max_new_tokens=spec.max_new_tokens)
        opts = DecodeOptions(penalty=target.repetition_penalty, prompts=prompts, own=False)
        return [[] for _ in request.images], cfg, opts
    opts = DecodeOptions(
        request.starts,
        target.boundary_ids,
        run_cost(target, spec) if spec.cost_aware else None,
        target.repetition_penalty,
        prompts,
        request.batch_stop,
        request.prior,
        limits=request.limits,
        prices=target.pass_prices,
    )
    return list(drafts), spec, opts


def join_late(stepper: SpecStepper, group: int, target: VisionTarget, request: RowsRequest) -> bool:
    """Once the request's late drafts have arrived, they join its rows (`group` of `stepper`, some
    row of which still decodes: the caller's to ask) with the settings their request decodes by;
    True once they have (methods/late.py)."""
    late = request.late
    if late is None or late.check() is None:
        return False
    joined = late.joined
    if joined.prior is None:  # the drafts' source's prior, as a page that started with them
        joined = replace(joined, prior=prior_for(late.draft_source))
    drafts, cfg, opts = loop_settings(target, joined, None)  # the prompts went into the rows at their prefill
    stepper.attach(group, drafts, cfg, opts)
    return True


def decode_rows(target: VisionTarget, request: RowsRequest) -> RowsDone:
    """One request's rows decoded alone (out of memory in a batch, halves of region crops)."""
    p = prefill(target, request)
    stepper = SpecStepper()
    group = stepper.add(p.session, p.first, p.drafts, p.cfg, p.rule, p.opts)
    t0, steps, joined = time.perf_counter(), 0, False
    while not stepper.done:  # its one group decodes until then
        joined = joined or join_late(stepper, group, target, request)
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
