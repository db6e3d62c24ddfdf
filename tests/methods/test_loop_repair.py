"""--on-loop through the hierarchy on a real tiny model whose greedy choice is forced (oracle).

A looping page: `stop` keeps the loop up to the repeat guard (truncated); `draft` cuts it after
its first period and appends the rest of the page's draft. A page that does not loop comes out
the same under both settings, forced or not.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from decoding import run_hsd, run_page
from fakes import lined_image, make_pdf
from typer.testing import CliRunner

from hsd_cli.bench.oracle import OracleTarget
from hsd_cli.cli.app import app
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, PageStatus, PreparedPage, Region, RegionKind
from hsd_cli.driver import choose
from hsd_cli.driver.choose import converter_with
from hsd_cli.methods.crops import crop_region

GUARD = 16  # repeat guard span: loops of period <= 2 tokens
SPEC = SpecConfig(max_new_tokens=200, repeat_guard=GUARD, cost_model="flat")  # flat: Stage 1 pays here
REGIONS = (
    Region((10, 10, 300, 60), RegionKind.TEXT, 0, "Line 0 of the page."),
    Region((10, 110, 300, 160), RegionKind.TEXT, 1, "Line 2 of the page, where the text goes on for a while."),
)


def _page() -> PageImage:
    return PageImage(Path("loop.png"), 0, lined_image(), 72)


@pytest.fixture
def oracle(tiny_target):
    """(target, page, region token lists, the page's full text as tokens); crops write their text."""
    target = OracleTarget(tiny_target("qwen2_5_vl"))
    page = _page()
    texts = [target.encode(r.text) for r in REGIONS]
    for region, tokens in zip(REGIONS, texts, strict=False):
        target.expect(crop_region(page.image, region.bbox), tokens)
    full = texts[0] + target.encode("\n\n") + texts[1]
    yield target, page, texts, full
    target.clear()


def _looping(tokens: list[int], k: int) -> list[int]:
    """The first k tokens, then the last two of them over and over (past the guard)."""
    return tokens[:k] + tokens[k - 2 : k] * GUARD


def _outcome(out) -> tuple:
    """What a setting could change: the tokens, the flags, the steps (timings aside)."""
    return out.tokens, out.truncated, out.loop_repaired, out.stage1.steps, out.page.steps


def _hsd(target, page, texts, on_loop: str):
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=replace(SPEC, on_loop=on_loop))
    return run_hsd(target, page, list(REGIONS), [[t] for t in texts], cfg)


def test_hsd_looping_page_draft_appends_the_stage1_rest(oracle):
    target, page, texts, full = oracle
    k = len(full) - len(texts[1]) + 8  # the loop starts 8 tokens into the second region
    target.expect(page.image, _looping(full, k))
    stopped = _hsd(target, page, texts, "stop")
    assert stopped.truncated and not stopped.loop_repaired
    assert stopped.tokens[:k] == full[:k] and stopped.tokens != full
    drafted = _hsd(target, page, texts, "draft")
    assert drafted.tokens == full  # kept part + the Stage-1 output's rest: the whole page, no EOS
    assert drafted.truncated and drafted.loop_repaired


def test_page_method_looping_page_draft_appends_the_page_draft_rest(oracle):
    target, page, _, full = oracle
    target.expect(page.image, _looping(full, 12))
    assert run_page(target, page, [full], SPEC).tokens[:12] == full[:12]
    out = run_page(target, page, [full], replace(SPEC, on_loop="draft"))
    assert out.tokens == full and out.loop_repaired


def test_looping_region_gets_its_draft_and_the_page_stays_the_models(oracle):
    """A Stage-1 loop only changes Stage 2's drafts: the page is still the model's own output."""
    target, page, texts, full = oracle
    target.expect(crop_region(page.image, REGIONS[1].bbox), _looping(texts[1], 6))
    target.expect(page.image, full)
    for on_loop in ("stop", "draft"):
        out = _hsd(target, page, texts, on_loop)
        assert out.tokens == full + [target.eos] and not out.truncated and not out.loop_repaired


def test_page_that_does_not_loop_is_the_same_under_both_settings(oracle, tiny_target):
    target, page, texts, full = oracle
    target.expect(page.image, full)
    assert _outcome(_hsd(target, page, texts, "stop")) == _outcome(_hsd(target, page, texts, "draft"))
    real = tiny_target("qwen2_5_vl")  # unforced: the tiny model's own greedy output
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=replace(SPEC, max_new_tokens=64))
    drafts = [[t] for t in texts]
    stop = run_hsd(real, page, list(REGIONS), drafts, cfg)
    draft = run_hsd(real, page, list(REGIONS), drafts, replace(cfg, spec=replace(cfg.spec, on_loop="draft")))
    assert _outcome(stop) == _outcome(draft) and not draft.loop_repaired


def test_page_report_says_the_loop_was_repaired(oracle):
    target, page, texts, full = oracle
    target.expect(page.image, _looping(full, 12))
    prepared = PreparedPage(page, REGIONS, "test")
    for on_loop, repaired in (("stop", False), ("draft", True)):
        cfg = RunConfig(inputs=(), out_dir=Path("."), method="page", spec=replace(SPEC, on_loop=on_loop))
        result = converter_with(target, cfg).convert(prepared)
        assert result.status is PageStatus.TRUNCATED and result.loop_repaired is repaired


@pytest.mark.parametrize(("args", "want"), [([], "stop"), (["--on-loop", "draft"], "draft")])
def test_cli_on_loop_option(tmp_path, monkeypatch, args, want):
    seen = []

    def load(cfg):
        seen.append(cfg.spec.on_loop)
        raise SystemExit(0)

    monkeypatch.setattr(choose, "converter_for", load)
    CliRunner().invoke(app, ["convert", str(make_pdf(tmp_path / "x.pdf", 1)), "-o", str(tmp_path / "o"), *args])
    assert seen == [want]
    bad = CliRunner().invoke(app, ["convert", str(tmp_path / "x.pdf"), "-o", str(tmp_path), "--on-loop", "x"])
    assert bad.exit_code == 2
