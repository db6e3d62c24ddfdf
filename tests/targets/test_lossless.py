"""Lossless contract on every family: tau = 1 gives exactly the AR tokens (float32)."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from decoding import rows as decode_rows
from decoding import run_ar, run_hsd, run_page
from make_tiny_model import SERVED
from PIL import Image, ImageDraw

from hsd_cli.config import COST_MODELS, RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind
from hsd_cli.methods.crops import crop_region

BUDGET = 40
DRAFT_SETS = 40  # per family and method; the toy-target property in tests/spec runs 300 more


def _page() -> PageImage:
    img = Image.new("RGB", (480, 640), "white")
    draw = ImageDraw.Draw(img)
    draw.text((40, 30), "Annual Report", fill="black")
    for i in range(12):
        draw.text((40, 80 + 40 * i), f"Line {i}: the quick brown fox jumps", fill="black")
    return PageImage(Path("synthetic.png"), 0, img, 72)


REGIONS = [
    Region((30, 20, 300, 50), RegionKind.TITLE, 0, "Annual Report", level=1),
    Region((30, 70, 450, 300), RegionKind.TEXT, 1, "Line 0: the quick brown fox"),
    Region((30, 310, 450, 560), RegionKind.TEXT, 2, "Line 6: the quick brown fox"),
    Region((300, 580, 460, 630), RegionKind.FIGURE, 3, ""),
]


def _random_drafts(ref: list[int], rng: random.Random, vocab: int) -> list[list[int]]:
    """Agreeing, corrupted, shuffled, random or no drafts."""
    kind = rng.choice(["exact", "corrupt", "pieces", "random", "empty"])
    if kind == "empty" or not ref:
        return []
    if kind == "exact":
        return [list(ref)]
    if kind == "random":
        return [[rng.randrange(vocab) for _ in range(rng.randint(1, 60))]]
    if kind == "corrupt":
        rate = rng.choice([0.05, 0.2, 0.5])
        return [[t if rng.random() > rate else rng.randrange(vocab) for t in ref]]
    cuts = sorted(rng.sample(range(1, len(ref)), min(3, len(ref) - 1))) if len(ref) > 1 else []
    pieces = [ref[a:b] for a, b in zip([0, *cuts], [*cuts, len(ref)], strict=False)]
    rng.shuffle(pieces)
    return pieces


def _random_spec(rng: random.Random) -> SpecConfig:
    window = rng.randint(1, 4)
    return SpecConfig(
        window=window,
        min_window=rng.randint(1, window),
        max_depth=rng.randint(1, 24),
        max_candidates=rng.randint(1, 8),
        max_new_tokens=BUDGET,
        cost_model=rng.choice(COST_MODELS),  # lossless under either policy
    )


@pytest.mark.parametrize("family", SERVED)
def test_page_method_equals_ar_over_random_drafts(family, tiny_target):
    """`page` at tau = 1: the same tokens as AR for every draft set and setting."""
    target, page, rng = tiny_target(family), _page(), random.Random(family)
    ref = run_ar(target, page, SpecConfig(max_new_tokens=BUDGET)).tokens
    assert len(set(ref)) > 5  # a degenerate model would make this test trivial
    for _ in range(DRAFT_SETS):
        drafts = _random_drafts(ref, rng, len(target.tokenizer))
        assert run_page(target, page, drafts, _random_spec(rng)).tokens == ref


@pytest.mark.parametrize("family", SERVED)
def test_hsd_method_equals_ar(family, tiny_target):
    """`hsd` at tau = 1: Stage-1 rows equal per-crop AR and the page equals page AR."""
    target, page, rng = tiny_target(family), _page(), random.Random(family)
    spec = SpecConfig(max_new_tokens=BUDGET)
    page_ref = run_ar(target, page, spec).tokens
    crops = [crop_region(page.image, r.bbox) for r in REGIONS[:3]]
    crop_refs = [r.tokens for r in decode_rows(target, crops, target.family.region_prompt, None, spec)[0]]
    for _ in range(DRAFT_SETS // 4):
        cfg = RunConfig(inputs=(), out_dir=Path("."), spec=replace(_random_spec(rng), region_starts=rng.random() < 0.5))
        drafts = [_random_drafts(ref, rng, len(target.tokenizer)) for ref in crop_refs] + [[]]
        out = run_hsd(target, page, REGIONS, drafts, cfg)
        assert out.tokens == page_ref
        assert out.stage1 is None or out.stage1.regions <= 3  # the figure is never verified


@pytest.mark.parametrize("family", SERVED)
def test_stage1_is_one_batched_forward_per_step(family, tiny_target):
    """Stage-1 forward calls = the most steps any region needed, not their sum."""
    target, page = tiny_target(family), _page()
    spec = SpecConfig(max_new_tokens=BUDGET)
    crops = [crop_region(page.image, r.bbox) for r in REGIONS[:3]]
    refs, _ = decode_rows(target, crops, target.family.region_prompt, None, spec)
    rows, report = decode_rows(target, crops, target.family.region_prompt, [[r.tokens[:20]] for r in refs], spec)
    assert [r.tokens for r in rows] == [r.tokens for r in refs]
    steps = [r.stats.steps for r in rows]
    assert report.steps == max(steps) < sum(steps)


@pytest.mark.parametrize("family", SERVED)
def test_self_drafts_cut_forward_passes(family, tiny_target):
    """Drafts equal to the AR output: at most 1/8 of the AR forward passes."""
    target, page = tiny_target(family), _page()
    spec = SpecConfig(max_new_tokens=128, max_depth=16)
    ar = run_ar(target, page, spec)
    fast = run_page(target, page, [ar.tokens], spec)
    assert fast.tokens == ar.tokens
    assert fast.page.steps * 8 <= ar.page.steps + 1  # + 1: AR's first token comes from the prefill


@pytest.mark.parametrize("kind", ["random", "exact"])
def test_stage1_forward_passes_are_bounded(kind, tiny_target):
    """Stage 1 costs at most max over regions of stage1_budget(drafts) forward passes (Not: decoded
    to the full token budget), and stops once fewer rows run than pay for a batched step."""
    from hsd_cli.methods.hsd import stage1_budget

    target, page, rng = tiny_target("qwen2_5_vl"), _page(), random.Random(0)
    vocab = target.model.config.get_text_config().vocab_size
    regions = REGIONS[:3]
    if kind == "random":
        drafts = [[[rng.randrange(vocab) for _ in range(60)]] for _ in regions]
    else:  # the crops' own AR outputs: Stage 1 runs them through
        drafts = [
            [
                decode_rows(
                    target,
                    [crop_region(page.image, r.bbox)],
                    target.family.prompt_for(r.kind.value),
                    None,
                    SpecConfig(max_new_tokens=BUDGET),
                )[0][0].tokens
            ]
            for r in regions
        ]
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=SpecConfig(max_new_tokens=512, cost_model="flat"))
    report = run_hsd(target, page, regions, drafts, cfg).stage1
    assert report.steps <= max(stage1_budget(d) for d in drafts)
    assert report.steps < len(report.accepted_hist)  # rows ran side by side (a batched step counts once)
