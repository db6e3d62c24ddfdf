"""A target method's PageResult: counts, times, provenance blocks and the AR baseline's own numbers."""

from __future__ import annotations

from dataclasses import replace

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageDecode, PageResult, PageStatus, PreparedPage, StageReport
from hsd_cli.metrics import full_time
from hsd_cli.report.blocks import coverage, model_blocks
from hsd_cli.report.provenance import token_regions
from hsd_cli.spec.stats import speculation_off
from hsd_cli.targets.runtime.base import VisionTarget


def page_result(
    target: VisionTarget,
    spec: SpecConfig,
    prepared: PreparedPage,
    out: PageDecode,
    method: str,
    t_draft: float,
    with_drafts: bool,
) -> PageResult:
    """The page's result from what its method decoded; `t_draft` includes tokenizing the drafts;
    `with_drafts`: the method verified drafts (not plain AR decoding)."""
    page = prepared.page
    text = target.decode(out.tokens)
    stages = [s for s in (out.stage1, out.page) if s is not None]
    t_prefill = sum(s.t_prefill for s in stages)
    t_decode = sum(s.t_decode for s in stages)
    hist = [a for s in stages for a in s.accepted_hist]  # sequence-steps of every stage
    return PageResult(
        source=str(page.source),
        page=page.number,
        status=PageStatus.TRUNCATED if out.truncated else PageStatus.OK,
        markdown=target.to_markdown(text) if out.markdown is None else out.markdown,
        method=method,
        draft_source=prepared.draft_source if with_drafts else "",
        tau=spec.tau,
        window=spec.window,
        tokens=len(out.tokens),
        steps=sum(s.steps for s in stages),
        accepted_hist=hist,
        t_render=prepared.t_render,
        t_draft=t_draft,
        t_prefill=t_prefill,
        t_decode=t_decode,
        t_total=full_time(t_draft, t_prefill, t_decode),
        stage1=out.stage1,
        stage2=out.page if out.stage1 is not None else None,
        draft_error=prepared.draft_error,
        loop_repaired=out.loop_repaired,
        fault=out.fault,
        width=page.image.width,
        height=page.image.height,
        dpi=page.dpi,
        **_provenance(target, prepared, out),
        **_speculation(prepared, stages, with_drafts, len(hist)),
    )


def _speculation(
    prepared: PreparedPage, stages: list[StageReport], with_drafts: bool, seq_steps: int
) -> dict[str, object]:
    """Whether a page that had drafts ran with its trees (nearly) the root alone, and why."""
    had_drafts = with_drafts and any(r.text.strip() for r in prepared.regions)
    drafted, matched = sum(s.drafted for s in stages), sum(s.matched for s in stages)
    note = speculation_off(drafted, matched, seq_steps) if had_drafts else ""
    return {"speculation_off": bool(note), "speculation_note": note}


def _provenance(target: VisionTarget, prepared: PreparedPage, out: PageDecode) -> dict[str, object]:
    """Blocks and coverage from the tokens' origins (reporting only: decoding is done)."""
    regions, t = list(prepared.regions), target
    owners = token_regions(out.origins, out.draft_map)
    size = prepared.page.image.size
    blocks = model_blocks(regions, out.tokens, owners, size, t.decode, t.to_markdown, t.boundary_ids)
    return {"blocks": blocks, "coverage": coverage(owners, regions)}


def add_baseline(result: PageResult, spec: PageDecode, ar: PageDecode) -> PageResult:
    """`result` with the AR baseline's own steps and times (SR_* follow from them) and the comparison."""
    identical = spec.tokens == ar.tokens
    divergence = None
    if not identical:
        pairs = zip(spec.tokens, ar.tokens, strict=False)
        divergence = next((i for i, (a, b) in enumerate(pairs) if a != b), min(len(spec.tokens), len(ar.tokens)))
    return replace(
        result,
        steps_ar=ar.page.steps,
        t_decode_ar=ar.page.t_decode,
        t_total_ar=full_time(0.0, ar.page.t_prefill, ar.page.t_decode),  # AR makes no drafts
        identical_to_ar=identical,
        first_divergence=divergence,
    )
