"""Faults cost a page at most: Stage-1 out of memory halves its batch, then falls back to `page`;
out of memory on the page fails that page in one line; a batch with each fault finishes the rest."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from decoding import OOM, FaultyTarget, run_hsd
from fakes import lined_image
from PIL import Image
from typer.testing import CliRunner

from hsd_cli.cli.app import app
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind
from hsd_cli.driver import choose
from hsd_cli.driver.choose import converter_with
from hsd_cli.methods.crops import crop_region
from hsd_cli.methods.hsd import STAGE1_OOM
from hsd_cli.pipeline import prepare as stages
from hsd_cli.targets.runtime.memory import is_oom, oom_line

SPEC = SpecConfig(max_new_tokens=24, repeat_guard=16)


def _regions(width: int) -> tuple[Region, ...]:
    return tuple(
        Region((10, 10 + 55 * i, width - 20, 60 + 55 * i), RegionKind.TEXT, i, f"line {i} of the page")
        for i in range(3)
    )


def _hsd(target, page: PageImage, batch: int = 4):
    regions = list(_regions(page.image.width))
    drafts = [[target.encode(r.text)] for r in regions]
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=replace(SPEC, stage1_batch=batch))
    return run_hsd(target, page, regions, drafts, cfg)


@pytest.fixture
def page() -> PageImage:
    return PageImage(Path("p.png"), 0, lined_image(320, "page"), 72)


def test_stage1_out_of_memory_retries_in_halves(tiny_target, page):
    target = tiny_target("qwen2_5_vl")
    clean = _hsd(FaultyTarget(target), page)
    faulty = FaultyTarget(target, max_rows=1)
    out = _hsd(faulty, page)
    assert faulty.batches == [1, 1, 1]  # 3 rows -> 1 + 2 -> 1 + 1 + 1
    assert out.tokens == clean.tokens and out.stage1.regions == 3 and not out.fault


def test_stage1_out_of_memory_for_one_region_falls_back_to_page(tiny_target, page):
    target = tiny_target("qwen2_5_vl")
    clean = _hsd(FaultyTarget(target), page)
    crops = {crop_region(page.image, r.bbox).size for r in _regions(320)}
    out = _hsd(FaultyTarget(target, oom_sizes=crops), page)
    assert out.fault == STAGE1_OOM and out.stage1 is None
    assert out.tokens == clean.tokens  # tau = 1: the fallback changes speed, not output


def test_page_out_of_memory_propagates(tiny_target, page):
    target = FaultyTarget(tiny_target("qwen2_5_vl"), oom_sizes={page.image.size})
    with pytest.raises(torch.OutOfMemoryError):
        _hsd(target, page)


def test_out_of_memory_is_recognised_and_said_in_one_line():
    assert is_oom(torch.OutOfMemoryError(OOM))
    assert is_oom(RuntimeError("[enforce fail at alloc_cpu.cpp:117] DefaultCPUAllocator: can't allocate memory"))
    assert not is_oom(RuntimeError("shape mismatch")) and not is_oom(ValueError("out of memory"))
    line = oom_line(torch.OutOfMemoryError(OOM))
    assert line.startswith("out of memory (tried to allocate 2.00 GiB)") and "\n" not in line


def test_a_batch_with_every_fault_finishes_every_other_page(tmp_path, monkeypatch, tiny_target):
    """Draft crash, Stage-1 OOM, page OOM and a looping page, each in its own document."""
    widths = {"ok1": 320, "crash": 322, "s1oom": 330, "pageoom": 340, "loop": 350, "ok2": 360}
    src = tmp_path / "in"
    src.mkdir()
    for name, width in widths.items():
        lined_image(width, name).save(src / f"{name}.png")
    s1_crops = {crop_region(lined_image(330, "s1oom"), r.bbox).size for r in _regions(330)}
    target = FaultyTarget(tiny_target("qwen2_5_vl"), oom_sizes=s1_crops | {(340, 240)})
    loop_page = Image.open(src / "loop.png").convert("RGB")
    text = target.encode("A page that loops")
    target.expect(loop_page, text + text[-2:] * 16)

    def fake_draft(self, doc, image):  # noqa: ANN001, ANN202 - the draft stage, faults included
        if doc.path.stem == "crash":
            raise RuntimeError("layout engine crashed")
        return image, list(_regions(image.image.width)), SimpleNamespace(name="test", exact=False)

    monkeypatch.setattr(stages.Preparer, "_draft", fake_draft)
    monkeypatch.setattr(choose, "converter_for", lambda cfg: converter_with(target, cfg))
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "convert",
            str(src),
            "-o",
            str(out),
            "--method",
            "hsd",
            "--workers",
            "0",
            "--max-new-tokens",
            "24",
            "--repeat-guard",
            "16",
            "--batch-pages",
            "1",  # the oracle's forced pages and free ones do not share a batch (test_batch_faults)
        ],
    )
    assert result.exit_code == 1  # one page failed
    err = result.stderr.splitlines()
    (page_oom,) = [line for line in err if "pageoom" in line]
    assert page_oom.endswith("pageoom.png: page 1: " + oom_line(torch.OutOfMemoryError(OOM)))
    assert any("crash.png: page 1: draft pipeline failed" in line for line in err)
    assert any(f"s1oom.png: page 1: {STAGE1_OOM}" in line for line in err)
    assert "Traceback" not in result.output + result.stderr
    for name in widths:
        pages = json.loads(next((out / name).rglob("summary.json")).read_text())
        assert (pages["failed_pages"] == [1]) == (name == "pageoom"), name
    report = json.loads(next((out / "s1oom").rglob("page-0001.json")).read_text())
    assert report["fault"] == STAGE1_OOM and report["status"] != "failed"
    loop = json.loads(next((out / "loop").rglob("page-0001.json")).read_text())
    assert loop["status"] == "truncated"
