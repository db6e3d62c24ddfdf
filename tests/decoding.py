"""Tests' shorthands for decoding: the speculative loop run to its end on a session (`spec_decode`,
`ar_decode`), one method on one page through the real driver (driver/batch.py), a batch of one,
and a target that runs out of memory where a test says (`FaultyTarget`)."""

from __future__ import annotations

import torch
from PIL import Image

from hsd_cli.bench.oracle import OracleTarget, image_key
from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageImage, Region
from hsd_cli.driver.batch import Batcher
from hsd_cli.driver.rows import decode_rows
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import Method, PageDrafts, PageWork, RowsRequest
from hsd_cli.methods.elements import Elements
from hsd_cli.methods.hsd import HSD
from hsd_cli.methods.page import Page
from hsd_cli.spec.align import TokenDrafts
from hsd_cli.spec.decode import RowResult, SpecStepper, TargetSession
from hsd_cli.spec.row import NO_OPTIONS, DecodeOptions
from hsd_cli.spec.stop import StopRule
from hsd_cli.targets.runtime.base import VisionTarget


def spec_decode(
    session: TargetSession,
    first_logits: torch.Tensor,  # [B, V] from the prefill
    drafts: TokenDrafts,  # per row: its draft token lists
    cfg: SpecConfig,
    rule: StopRule,
    opts: DecodeOptions = NO_OPTIONS,
) -> list[RowResult]:
    """Greedy decoding that verifies draft trees; with tau = 1 it equals `ar_decode`."""
    stepper = SpecStepper()
    stepper.add(session, first_logits, drafts, cfg, rule, opts)
    while not stepper.done:
        stepper.step()
    return stepper.results()


def ar_decode(
    session: TargetSession, first_logits: torch.Tensor, rule: StopRule, opts: DecodeOptions = NO_OPTIONS
) -> list[RowResult]:
    """Plain greedy decoding, one token per step: the same loop with no drafts."""
    cfg = SpecConfig(window=1, max_new_tokens=rule.max_new_tokens)
    empty = [[] for _ in range(first_logits.shape[0])]
    return spec_decode(
        session, first_logits, empty, cfg, rule, DecodeOptions(penalty=opts.penalty, prompts=opts.prompts, own=False)
    )


def decode_page(method: Method, work: PageWork) -> PageDecode:
    """Run `method`'s job for the page to its end: a batch of one page."""
    ((_, out),) = Batcher(work.target).run([(0, method, work)])
    if isinstance(out, Exception):
        raise out
    return out


def decode(
    method: Method,
    target: VisionTarget,
    page: PageImage,
    regions: list[Region],
    spec: SpecConfig,
    drafts: PageDrafts | None = None,
    draft_source: str = "",
) -> PageDecode:
    """A page decoded outside a converter; the method makes the drafts unless given."""
    drafts = method.drafts(target, regions) if drafts is None else drafts
    return decode_page(method, PageWork(target, page, regions, drafts, spec, draft_source))


def run_ar(target, page, spec):
    return decode(AR(), target, page, [], spec)


def run_page(target, page, drafts, spec, dmap=None):
    """Page-level spec decoding against `drafts` (token lists)."""
    return decode(Page(), target, page, [], spec, PageDrafts([drafts], dmap))


def run_hsd(target, page, regions, region_drafts, cfg):
    """hsd with these region drafts; the page draft is their first drafts joined, as a page's would be."""
    page_draft = [t for d in region_drafts for t in (d[0] if d else [])]
    return decode(HSD(), target, page, list(regions), cfg.spec, PageDrafts([*region_drafts, [page_draft]]))


def run_elements(target, page, regions, region_drafts, cfg):
    """Element by element: AR when `region_drafts` is None."""
    method = Elements("test", verify=region_drafts is not None)
    return decode(method, target, page, list(regions), cfg.spec, PageDrafts(region_drafts or []))


def rows(target, images, prompt, drafts, spec):
    """decode_rows on a batch: (rows, report)."""
    done = decode_rows(target, RowsRequest(tuple(images), prompt, None if drafts is None else tuple(drafts), spec))
    return list(done.rows), done.report


OOM = "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.10 GiB total capacity)"


class FaultyTarget(OracleTarget):
    """The tiny target with injected faults: out of memory for images of the listed sizes, or
    for Stage-1 batches of more than `max_rows` crops; pages with an expectation are forced."""

    def __init__(self, inner, oom_sizes=(), max_rows: int | None = None):
        super().__init__(inner)
        self.repetition_penalty = inner.repetition_penalty
        self.oom_sizes, self.max_rows = set(oom_sizes), max_rows
        self.batches: list[int] = []  # Stage-1 batch sizes that reached the model

    def prefill(self, images: list[Image.Image], prompt: str):
        crops = prompt != self.family.page_prompt
        if any(im.size in self.oom_sizes for im in images) or (crops and self.max_rows and len(images) > self.max_rows):
            raise torch.OutOfMemoryError(OOM)
        if crops:
            self.batches.append(len(images))
        if all(image_key(im) in self._refs for im in images):
            return super().prefill(images, prompt)
        return self.inner.prefill(images, prompt)
