"""The shared stepper: a batch of rows (images + one prompt, each row with its drafts) is
prefilled and decoded; every method hands its work to it as `RowsRequest`s."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import StageReport
from hsd_cli.methods.cost import run_cost
from hsd_cli.spec.budget import AcceptPrior
from hsd_cli.spec.decode import DecodeOptions, RowResult, ar_decode, spec_decode
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

    def halves(self) -> tuple[RowsRequest, RowsRequest]:
        """The first and second half of the rows, each a request of its own."""
        h = len(self.images) // 2
        d = self.drafts
        first = replace(self, images=self.images[:h], drafts=None if d is None else d[:h])
        return first, replace(self, images=self.images[h:], drafts=None if d is None else d[h:])


@dataclass(frozen=True, slots=True)
class RowsDone:
    """The decoded rows of a request, in its order, and what decoding them cost."""

    rows: tuple[RowResult, ...]
    report: StageReport


def decode_rows(target: VisionTarget, request: RowsRequest) -> RowsDone:
    """Prefill a batch and decode it (AR when drafts are None); time both parts (device-synced)."""
    spec, drafts = request.spec, request.drafts
    rule = StopRule(target.eos_ids, spec.max_new_tokens, spec.repeat_guard)
    sync(target.device)
    t0 = time.perf_counter()
    session, first = target.prefill(list(request.images), request.prompt)
    sync(target.device)
    t1 = time.perf_counter()
    opts = DecodeOptions(
        request.starts,
        target.boundary_ids,
        run_cost(target, spec) if spec.cost_aware and drafts is not None else None,
        target.repetition_penalty,
        session.prompt_ids,
        request.batch_stop,
        request.prior,
    )
    if drafts is None:
        rows = ar_decode(session, first, rule, opts)
    else:
        rows = spec_decode(session, first, list(drafts), spec, rule, opts)
    sync(target.device)
    report = StageReport(
        steps=session.forward_calls,
        tokens=sum(len(r.tokens) for r in rows),
        accepted=sum(r.stats.accepted for r in rows),
        t_prefill=t1 - t0,
        t_decode=time.perf_counter() - t1,
        regions=len(rows),
        accepted_hist=[a for r in rows for a in r.stats.accepted_hist],
        drafted=sum(r.stats.drafted for r in rows),
        matched=sum(r.stats.matched for r in rows),
    )
    return RowsDone(tuple(rows), report)


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
