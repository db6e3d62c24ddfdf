"""Stage 1 orchestration: which regions are verified, with which prompt, in which batches."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from PIL import Image

from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind, StageReport
from hsd_cli.methods import hierarchy
from hsd_cli.spec.decode import RowResult
from hsd_cli.spec.stats import DecodeStats
from hsd_cli.spec.stop import StopReason
from hsd_cli.targets.paddle_vl import SPECS as PADDLE


def _regions() -> list[Region]:
    kinds = [RegionKind.TEXT, RegionKind.TABLE, RegionKind.FIGURE, RegionKind.HEADER, RegionKind.TEXT]
    return [Region((10, 10 + 30 * i, 200, 35 + 30 * i), k, i, f"r{i}") for i, k in enumerate(kinds)]


def test_stage1_groups_rows_by_kind_prompt(monkeypatch):
    """Tables get the table prompt; figures and furniture are skipped; outputs keep region order."""
    calls = []

    def fake_decode_rows(target, images, prompt, drafts, spec, starts=False, give_up=None):
        calls.append((prompt, len(images)))
        rows = [RowResult([d[0][0], 99], StopReason.EOS, DecodeStats()) for d in drafts]
        return rows, StageReport(steps=1, regions=len(rows))

    monkeypatch.setattr(hierarchy, "decode_rows", fake_decode_rows)
    target = SimpleNamespace(spec=PADDLE[0], eos_ids=frozenset({99}))
    page = PageImage(Path("p.png"), 0, Image.new("RGB", (240, 200), "white"), 72)
    drafts = [[[i]] for i in range(5)]
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=SpecConfig(stage1_batch=1))
    outputs, report = hierarchy.run_stage1(target, page, _regions(), drafts, cfg)
    assert outputs == [[0], [1], [4]]  # Not [[0], [4], [1]]: reading order, EOS dropped
    assert calls == [("OCR:", 1), ("OCR:", 1), ("Table Recognition:", 1)]
    assert report.regions == 3
