"""`--method page`: one row, the page image against one draft (the regions in reading order)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind, StageReport
from hsd_cli.drafts.markup import page_markdown
from hsd_cli.methods.base import PageWork, RowsDone
from hsd_cli.methods.page import Page
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.hunyuan import FAMILIES as HUNYUAN

EOS = 99
REGIONS = [
    Region((0, 0, 100, 20), RegionKind.TITLE, 0, "Annual report", level=1),
    Region((0, 30, 100, 60), RegionKind.TEXT, 1, "Revenue grew."),
]


def _target() -> SimpleNamespace:
    words = lambda text: [len(w) for w in text.split()]  # noqa: E731 - a token per word
    return SimpleNamespace(family=HUNYUAN[0], eos_ids=frozenset({EOS}), encode=words)


def test_the_page_draft_is_the_regions_markdown_with_each_regions_span():
    target = _target()
    drafts = Page().drafts(target, REGIONS)
    (draft,) = drafts.drafts[0]
    assert draft == target.encode(page_markdown(REGIONS, HUNYUAN[0].style))  # one draft, not one per region
    assert [drafts.draft_map.region_of((0, i)) for i in range(len(draft))] == [0, 0, 0, 1, 1]


def test_page_verifies_its_one_draft_and_keeps_the_draft_map():
    target = _target()
    page = PageImage(Path("p.png"), 0, Image.new("RGB", (100, 80), "white"), 72)
    drafts = Page().drafts(target, REGIONS)
    job = Page().start(PageWork(target, page, REGIONS, drafts, SpecConfig()))
    request = next(job)
    assert request.images == (page.image,) and request.drafts == (drafts.drafts[0],)
    assert request.prompt == HUNYUAN[0].page_prompt and not request.starts
    row = RowResult([1, 6, EOS], StopReason.EOS, DecodeStats(), origins=[(0, 0), (0, 1), (-1, -1)])
    with pytest.raises(StopIteration) as returned:
        job.send(RowsDone((row,), StageReport(steps=2)))
    out = returned.value.value
    assert out.tokens == [1, 6, EOS] and out.origins == row.origins and out.draft_map is drafts.draft_map
    assert not out.truncated and not out.loop_repaired


def test_page_verifies_drafts_and_plans_no_crops():
    page = Page()
    assert page.uses_drafts and not page.prices_crops
    prepared = PreparedPage(PageImage(Path("p.png"), 0, Image.new("RGB", (8, 8)), 72), tuple(REGIONS), "x")
    assert page.for_page(prepared, _target(), SpecConfig()) is page
