"""Tests' shorthands for decoding: the speculative loop run to its end on a session (`spec_decode`,
`ar_decode`), and one method on one page through the real driver (driver/batch.py), a batch of one."""

from __future__ import annotations

import torch

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
