"""`--method ar`: one row, the page image and the family's page prompt, no drafts."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind, StageReport
from hsd_cli.methods.ar import AR
from hsd_cli.methods.base import PageDrafts, PageWork, RowsDone
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.hunyuan import FAMILIES as HUNYUAN

EOS = 99
REGIONS = [Region((0, 0, 10, 10), RegionKind.TEXT, 0, "a draft AR never reads")]


def _work() -> PageWork:
    target = SimpleNamespace(family=HUNYUAN[0], eos_ids=frozenset({EOS}))
    page = PageImage(Path("p.png"), 0, Image.new("RGB", (40, 40), "white"), 72)
    return PageWork(target, page, REGIONS, PageDrafts([]), SpecConfig())


def _finish(job, tokens: list[int]):
    with pytest.raises(StopIteration) as returned:
        job.send(RowsDone((RowResult(tokens, StopReason.EOS, DecodeStats()),), StageReport(steps=len(tokens))))
    return returned.value.value


def test_ar_asks_for_the_page_alone_without_drafts():
    work = _work()
    job = AR().start(work)
    request = next(job)
    assert request.images == (work.page.image,) and request.drafts is None  # None: plain AR, not [[]]
    assert request.prompt == HUNYUAN[0].page_prompt and request.spec == work.spec
    out = _finish(job, [5, 6, EOS])
    assert out.tokens == [5, 6, EOS] and not out.truncated and out.stage1 is None and out.draft_map is None


def test_a_row_without_its_end_of_sequence_is_truncated():
    job = AR().start(_work())
    next(job)
    assert _finish(job, [5, 6]).truncated


def test_ar_verifies_no_drafts_and_is_the_same_method_on_every_page():
    ar = AR()
    assert not ar.uses_drafts and not ar.prices_crops  # its own baseline; no cost model to load
    assert ar.drafts(_work().target, REGIONS).drafts == []
    prepared = PreparedPage(_work().page, tuple(REGIONS), "text_layer")
    assert ar.for_page(prepared, _work().target, SpecConfig(), batch=4) is ar
