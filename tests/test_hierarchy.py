"""Stage 1 orchestration: which regions are verified, with which prompt, in which batches."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind, StageReport
from hsd_cli.methods.base import PageDrafts, PageWork
from hsd_cli.methods.hsd import HSD
from hsd_cli.methods.rows import RowsDone
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.paddle_vl import SPECS as PADDLE


def _regions() -> list[Region]:
    kinds = [RegionKind.TEXT, RegionKind.TABLE, RegionKind.FIGURE, RegionKind.HEADER, RegionKind.TEXT]
    return [Region((10, 10 + 30 * i, 200, 35 + 30 * i), k, i, f"r{i}") for i, k in enumerate(kinds)]


def test_stage1_groups_rows_by_kind_prompt():
    """Tables get the table prompt; figures and furniture are skipped; outputs keep region order.

    The hsd job is driven by hand: each request it yields is answered with rows echoing the drafts."""
    target = SimpleNamespace(spec=PADDLE[0], eos_ids=frozenset({99}), encode=lambda text: [7])
    page = PageImage(Path("p.png"), 0, Image.new("RGB", (240, 200), "white"), 72)
    drafts = PageDrafts([[[i]] for i in range(5)])
    job = HSD().start(PageWork(target, page, _regions(), drafts, SpecConfig(stage1_batch=1)))
    requests, request = [], next(job)
    while request.images[0] is not page.image:  # Stage 1: crops, until the page's request
        requests.append(request)
        rows = tuple(RowResult([d[0][0], 99], StopReason.EOS, DecodeStats()) for d in request.drafts)
        request = job.send(RowsDone(rows, StageReport(steps=1, regions=len(rows))))
    assert [(r.prompt, len(r.images)) for r in requests] == [("OCR:", 1), ("OCR:", 1), ("Table Recognition:", 1)]
    assert request.drafts == ([[0], [1], [4]],)  # Not [[0], [4], [1]]: reading order, EOS dropped
    with pytest.raises(StopIteration) as stop:
        job.send(RowsDone((RowResult([5, 99], StopReason.EOS, DecodeStats()),), StageReport(steps=1, regions=1)))
    assert stop.value.value.stage1.regions == 3 and stop.value.value.tokens == [5, 99]
