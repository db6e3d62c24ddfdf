"""Row requests: a batch of rows (images + one prompt, each row with its drafts) that a method
wants decoded, its prefill, and what decoding it cost; methods/batch.py decodes them together."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import torch
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import StageReport
from hsd_cli.methods.cost import run_cost
from hsd_cli.spec.budget import AcceptPrior
from hsd_cli.spec.decode import DecodeOptions, RowResult, SpecStepper, TargetSession
from hsd_cli.spec.stats import BatchStop
from hsd_cli.spec.stop import StopRule
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.costs import sync


@dataclass(frozen=True, slots=True)
class RowsRequest:
    """One batch of rows a method wants decoded: one prompt, one image and drafts per row."""

    images: tuple[Image.Image, ...]
    prompt: str
    drafts: tuple[list[list[int]], ...] | None  # per row: its draft token lists; None: AR
    spec: SpecConfig
    starts: bool = False  # offer draft beginnings after a boundary token (region starts)
    batch_stop: BatchStop | None = None  # cut the running rows once more steps do not pay
    split_on_oom: bool = False  # region crops: out of memory, the rows are retried in halves
    prior: AcceptPrior | None = None  # the drafts' acceptance before any is seen; None: the driver's choice
    limits: tuple[int, ...] | None = None  # per row: a token budget under spec.max_new_tokens

    def halves(self) -> tuple[RowsRequest, RowsRequest]:
        """The first and second half of the rows, each a request of its own."""
        h = len(self.images) // 2
        d = self.drafts
        n = self.limits
        first = replace(self, images=self.images[:h], drafts=None if d is None else d[:h], limits=n and n[:h])
        return first, replace(self, images=self.images[h:], drafts=None if d is None else d[h:], limits=n and n[h:])


@dataclass(frozen=True, slots=True)
class RowsDone:
    """The decoded rows of a request, in its order, and what decoding them cost."""

    rows: tuple[RowResult, ...]
    report: StageReport


@dataclass(frozen=True, slots=True)
class Prefilled:
    """A request's rows after their prefill: ready to join a running batch."""

    session: TargetSession
    first: torch.Tensor  # [B, V] first-token logits
    drafts: list[list[list[int]]]  # per row; empty lists for AR rows
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
    stepper = SpecStepper(p.session, p.first, p.drafts, p.cfg, p.rule, p.opts)
    t0, steps = time.perf_counter(), 0
    while not stepper.done:
        stepper.step()
        steps += 1
    sync(target.device)
    rows = stepper.results()
    return RowsDone(tuple(rows), stage_report(rows, steps, p.t_prefill, time.perf_counter() - t0))


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


def join(a: StageReport, b: StageReport) -> StageReport:
    """Two reports of one stage as one."""
    return replace(
        a,
        steps=a.steps + b.steps,
        tokens=a.tokens + b.tokens,
        accepted=a.accepted + b.accepted,
        accepted_hist=a.accepted_hist + b.accepted_hist,
        t_prefill=a.t_prefill + b.t_prefill,
        t_decode=a.t_decode + b.t_decode,
        regions=a.regions + b.regions,
        drafted=a.drafted + b.drafted,
        matched=a.matched + b.matched,
    )


def truncated(row: RowResult, eos_ids: frozenset[int]) -> bool:
    """The row stopped before the model's end of sequence."""
    return not row.tokens or row.tokens[-1] not in eos_ids
