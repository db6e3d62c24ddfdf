"""`--method auto`: page for exact drafts or costly batches, hsd where a Stage-1 batch pays."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind
from hsd_cli.methods.auto import choose_method
from hsd_cli.methods.cost import flat_cost
from hsd_cli.spec.budget import CostModel
from hsd_cli.targets.qwen_vl import SPECS

GPU = CostModel(((1, 0.02), (256, 0.025)))  # flat: a batch costs what one step costs
CPU = CostModel(((1, 0.3), (2, 0.33), (128, 3.0), (256, 5.8)))  # grows with the tokens
CFG = SpecConfig()


def _page(source: str, n: int = 4) -> PreparedPage:
    text = "a line of text the region holds"
    regions = tuple(Region((50, 80 * i, 950, 80 * i + 60), RegionKind.TEXT, i, text, source=source) for i in range(n))
    return PreparedPage(PageImage(Path("p.png"), 0, Image.new("RGB", (1000, 1400)), 144), regions, source)


def _target(cost: CostModel) -> SimpleNamespace:
    return SimpleNamespace(spec=SPECS[0], cost=cost, encode=lambda text: list(range(len(text.split()))))


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
    assert cost.ratio(1) == cost.ratio(36) == 1.0  # 4 rows x (8 drafts + root)
    assert cost.ratio(72) == 2.0


def test_a_text_layer_table_is_worth_stage1_where_batches_are_free():
    page = _page("text_layer")
    regions = tuple(replace(r, kind=RegionKind.TABLE) if r.order < 2 else r for r in page.regions)
    assert choose_method(replace(page, regions=regions), _target(GPU), CFG) == "hsd"


def test_regions_past_the_page_token_budget_are_not_worth_stage1():
    page = _page("rapidocr")
    short = replace(CFG, max_new_tokens=4)  # only the first region starts within it
    assert choose_method(page, _target(GPU), short) == "page"
