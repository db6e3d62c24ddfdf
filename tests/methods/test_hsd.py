"""Stage 1 orchestration: which regions are verified, with which prompt, in which batches."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind, StageReport
from hsd_cli.methods import hsd
from hsd_cli.methods.base import PageDrafts, PageWork, RowsDone
from hsd_cli.methods.hsd import HSD
from hsd_cli.spec.align import TokenDrafts
from hsd_cli.spec.budget import CostModel
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.paddle_vl import FAMILIES as PADDLE


def _regions() -> list[Region]:
    kinds = [RegionKind.TEXT, RegionKind.TABLE, RegionKind.FIGURE, RegionKind.HEADER, RegionKind.TEXT]
    return [Region((10, 10 + 30 * i, 200, 35 + 30 * i), k, i, f"r{i}") for i, k in enumerate(kinds)]


def _drive(work: PageWork, page: PageImage, reply, method=None, report=None) -> tuple[list, object, object]:
    """Answer the hsd job's Stage-1 requests with `reply(request)` rows, until the page's request."""
    job = (method or HSD()).start(work)
    requests, request = [], next(job)
    while request.images[0] is not page.image:
        requests.append(request)
        rows = reply(request)
        request = job.send(RowsDone(rows, report or StageReport(steps=1, regions=len(rows))))
    return requests, request, job


def _work(drafts: TokenDrafts, spec: SpecConfig) -> tuple[PageWork, PageImage]:
    cost = CostModel(((1, 0.02), (256, 0.025)))  # a GPU's step (seconds), for the measured regime
    target = SimpleNamespace(family=PADDLE[0], eos_ids=frozenset({99}), encode=lambda text: [7], cost=cost)
    page = PageImage(Path("p.png"), 0, Image.new("RGB", (240, 200), "white"), 72)
    return PageWork(target, page, _regions(), PageDrafts(drafts), spec), page


def test_stage1_groups_rows_by_kind_prompt():
    """Tables get the table prompt; figures and furniture are skipped; outputs keep region order,
    and the page draft follows them in Stage 2. The hsd job is driven by hand."""
    drafts = [[[i] * 6] for i in range(5)] + [[[50, 51]]]  # per region, then the page draft
    work, page = _work(drafts, SpecConfig(stage1_batch=2, cost_model="flat"))
    echo = lambda req: tuple(RowResult([*d[0], 99], StopReason.EOS, DecodeStats()) for d in req.drafts)  # noqa: E731
    requests, request, job = _drive(work, page, echo)
    assert [(r.prompt, len(r.images)) for r in requests] == [("OCR:", 2)]  # a lone table row does not pay
    assert request.drafts == ([[0] * 6, [4] * 6, [50, 51]],)  # Not [[0]*6, [4]*6] alone: the page draft too
    with pytest.raises(StopIteration) as stop:
        job.send(RowsDone((RowResult([5, 99], StopReason.EOS, DecodeStats()),), StageReport(steps=1, regions=1)))
    assert stop.value.value.stage1.regions == 2 and stop.value.value.tokens == [5, 99]


def test_a_cut_row_hands_stage2_the_exact_prefix_it_reached():
    drafts = [[[i] * 6] for i in range(5)] + [[[50]]]
    work, page = _work(drafts, SpecConfig(stage1_batch=2, cost_model="flat"))
    cut = lambda req: tuple(RowResult([1, 2, 3], StopReason.CUT, DecodeStats()) for _ in req.drafts)  # noqa: E731
    _, request, _ = _drive(work, page, cut)
    assert request.drafts == ([[1, 2, 3], [1, 2, 3], [50]],)


def test_without_a_paying_batch_hsd_is_the_page_method():
    drafts = [[[i] * 2] for i in range(5)] + [[[50, 51]]]  # regions too short for a row of their own
    work, page = _work(drafts, SpecConfig(cost_model="flat"))
    requests, request, _ = _drive(work, page, lambda req: ())
    assert requests == [] and request.drafts == ([[50, 51]],) and not request.starts


def _echo(req):
    return tuple(RowResult([*d[0], 99], StopReason.EOS, DecodeStats()) for d in req.drafts)


def test_a_plan_handed_to_hsd_is_not_made_again(monkeypatch):
    """`auto` planned the page already: the job runs that plan and those drafts as they are."""

    def again(*args):
        raise AssertionError("planned twice")

    monkeypatch.setattr(hsd, "stage1_plan", again)
    monkeypatch.setattr(hsd, "region_drafts", again)
    drafts = [[[i] * 6] for i in range(5)]
    method = HSD(plan=(("OCR:", [4, 0]),), regions_drafts=drafts)
    work, page = _work(method.drafts(work_target(), _regions()).drafts, SpecConfig(cost_model="flat"))
    requests, request, _ = _drive(work, page, _echo, method)
    assert [len(r.images) for r in requests] == [2] and request.drafts[0][:2] == [[0] * 6, [4] * 6]


def work_target():
    return _work([], SpecConfig())[0].target


BILLS = [("measured", 30.0, 1), ("measured", 0.01, 2), ("flat", 30.0, 2)]  # regime, Stage-1 seconds, batches run


@pytest.mark.parametrize(("cost_model", "seconds", "batches"), BILLS)
def test_stage1_stops_once_its_measured_time_cannot_pay(cost_model, seconds, batches):
    """Measured, a batch that took more seconds than its row steps save (SAVING page steps each)
    ends Stage 1: the regions left keep their drafts (lossless). Flat costs are not seconds."""
    drafts = [[[i] * 6] for i in range(5)] + [[[50]]]
    plan = (("OCR:", [0]), ("OCR:", [4]))
    work, page = _work(drafts, SpecConfig(cost_model=cost_model))
    report = StageReport(steps=4, regions=1, accepted_hist=[1, 1, 1, 1], t_prefill=seconds)
    requests, _, _ = _drive(work, page, _echo, HSD(plan=plan), report)
    assert len(requests) == batches


def test_stage1_rows_stop_where_the_page_runs_out_of_tokens():
    """A region whose draft runs past the page's token budget is verified only as far as the page
    gets (plus slack for the model's edits); regions starting past the budget get no row."""
    drafts = [[[i] * 30] for i in range(5)] + [[[50]]]  # regions start at page tokens 0, 30, ..., 120
    assert hsd.tokens_left(drafts[:5], 40) == [40, 10, 0, 0, 0]
    work, page = _work(drafts, SpecConfig(max_new_tokens=40, stage1_batch=4, cost_model="flat"))
    requests, _, _ = _drive(work, page, _echo, HSD(plan=(("OCR:", [0, 1]),)))
    (request,) = requests
    assert request.limits == (hsd.stage1_budget(drafts[0]), 15 + hsd.STAGE1_EXTRA)  # 1.5 x 10 tokens left
    assert request.spec.max_new_tokens == 40

    def planned(budget: int) -> list[int]:
        spec = replace(work.spec, max_new_tokens=budget)
        return [i for _, chunk in hsd.stage1_plan(work.target, _regions(), drafts[:5], spec) for i in chunk]

    assert planned(400) == [0, 4] and planned(40) == []  # past the budget, region 4 leaves its pair alone
