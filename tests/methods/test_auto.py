"""`--method auto`: page for exact drafts or costly batches, hsd where a Stage-1 batch pays."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind
from hsd_cli.methods.auto import Auto, method_for
from hsd_cli.methods.cost import flat_cost
from hsd_cli.methods.crops import region_drafts
from hsd_cli.methods.hsd import HSD
from hsd_cli.spec.budget import CostModel
from hsd_cli.targets.qwen_vl import FAMILIES

GPU = CostModel(((1, 0.02), (256, 0.025)))  # flat: a batch costs what one step costs
CPU = CostModel(((1, 0.3), (2, 0.33), (128, 3.0), (256, 5.8)))  # grows with the tokens
CFG = SpecConfig()


def _page(source: str, n: int = 4) -> PreparedPage:
    text = "a line of text the region holds"
    regions = tuple(Region((50, 80 * i, 950, 80 * i + 60), RegionKind.TEXT, i, text, source=source) for i in range(n))
    return PreparedPage(PageImage(Path("p.png"), 0, Image.new("RGB", (1000, 1400)), 144), regions, source)


CHEAP_PREFILL = CostModel(((1024, 0.001), (10**6, 0.01)))  # seconds of an image's prefill by its pixels


def _target(cost: CostModel, prefill: CostModel = CHEAP_PREFILL) -> SimpleNamespace:
    words = lambda text: list(range(len(text.split())))  # noqa: E731
    return SimpleNamespace(family=FAMILIES[0], cost=cost, prefill_cost=prefill, encode=words)


def choose_method(prepared: PreparedPage, target, spec: SpecConfig) -> str:
    """The name of the method `auto` takes for this page."""
    return method_for(prepared, target, spec).name


def test_ocr_drafts_on_a_parallel_device_take_hsd():
    assert choose_method(_page("rapidocr"), _target(GPU), CFG) == "hsd"


def test_ocr_drafts_on_a_cpu_take_page():
    assert choose_method(_page("rapidocr"), _target(CPU), CFG) == "page"  # Not hsd: Stage 1 ~ a second decode


def test_text_layer_drafts_take_page_anywhere():
    assert choose_method(_page("text_layer"), _target(GPU), CFG) == "page"


def test_one_region_takes_page():
    assert choose_method(_page("rapidocr", n=1), _target(GPU), CFG) == "page"


def test_flat_cost_model_decides_as_a_gpu_on_any_device():
    flat = SpecConfig(cost_model="flat")
    assert choose_method(_page("rapidocr"), _target(CPU), flat) == "hsd"


def test_flat_cost_is_one_step_up_to_a_stage1_batch_of_full_trees():
    spec = SpecConfig(cost_model="flat", max_nodes=8, stage1_batch=4)
    cost = flat_cost(spec)
    assert cost(1) == cost(36) == 1.0  # 4 rows x (8 drafts + root)
    assert cost(72) == 2.0


def test_a_text_layer_table_is_worth_stage1_where_batches_are_free():
    page = _page("text_layer")
    regions = tuple(replace(r, kind=RegionKind.TABLE) if r.order < 2 else r for r in page.regions)
    assert choose_method(replace(page, regions=regions), _target(GPU), CFG) == "hsd"


def test_regions_past_the_page_token_budget_are_not_worth_stage1():
    page = _page("rapidocr")
    short = replace(CFG, max_new_tokens=4)  # only the first region starts within it
    assert choose_method(page, _target(GPU), short) == "page"


def test_crops_whose_measured_prefill_costs_a_page_take_page():
    """The processor may upscale every small crop to its minimum image (HunyuanOCR: 262144 pixels):
    measured, each crop's prefill costs about a page's, which no batch of 4 rows earns back."""
    page_sized = CostModel(((1024, 2.0), (10**6, 2.5)))  # seconds, whatever the crop's pixels
    assert choose_method(_page("rapidocr"), _target(GPU, prefill=page_sized), CFG) == "page"
    flat = SpecConfig(cost_model="flat")  # Not page: the flat regime prices crops as before
    assert choose_method(_page("rapidocr"), _target(CPU, prefill=page_sized), flat) == "hsd"


def test_a_batched_step_above_two_ar_steps_takes_page():
    """Measured, a Stage-1 batch runs only where its step costs at most PARALLEL_RATIO AR steps:
    the two curves price a batch alike against a page step (8 tree tokens); only AR differs."""
    cheap_ar = CostModel(((1, 0.1), (8, 0.25), (256, 0.5)))  # a batch of 4 rows (32 tokens): 2.7 AR steps
    dear_ar = CostModel(((1, 0.2), (8, 0.25), (256, 0.5)))  # the same batch: 1.4 AR steps
    assert choose_method(_page("rapidocr"), _target(cheap_ar), CFG) == "page"
    assert choose_method(_page("rapidocr"), _target(dear_ar), CFG) == "hsd"


def test_a_page_sharing_its_steps_with_other_pages_weighs_stage1_by_its_share():
    """At batch 8 a Stage-2 step saved for one page saves one row of a step the others take anyway."""
    grows = CostModel(((1, 0.2), (8, 0.25), (256, 0.5)))  # the curve on which hsd pays alone
    target = _target(grows, prefill=CostModel(((1024, 0.1), (10**6, 0.1))))  # 0.4 page steps per crop
    assert Auto().for_page(_page("rapidocr"), target, CFG, batch=1).name == "hsd"
    assert Auto().for_page(_page("rapidocr"), target, CFG, batch=8).name == "page"
    explicit = HSD().for_page(_page("rapidocr"), target, CFG, batch=8)  # hsd asked for: Stage 1 off
    assert explicit.name == "hsd" and explicit.plan == ()


def test_auto_hands_hsd_the_plan_and_drafts_it_made():
    page, target = _page("rapidocr"), _target(GPU)
    method = Auto().for_page(page, target, CFG)
    assert isinstance(method, HSD) and [chunk for _, chunk in method.plan] == [[0, 1, 2, 3]]
    assert method.regions_drafts == region_drafts(target, list(page.regions))
