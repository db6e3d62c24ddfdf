"""Methods, draft sources and engines are registered once (config.py) and everything follows:
a new one that misses a place fails here (docs/architecture.md, "Where to add")."""

from __future__ import annotations

import inspect
import typing
from pathlib import Path

import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from hsd_cli.bench.config import BASELINE, BENCH_METHODS, EXTERNAL
from hsd_cli.cli.app import app, convert
from hsd_cli.config import (
    AUTO_SOURCE,
    DRAFT_SOURCES,
    ENGINES,
    METHODS,
    RunConfig,
    SpecConfig,
    draft_source_choices,
    load,
    names,
)
from hsd_cli.datatypes import PageImage, PreparedPage, Region, RegionKind
from hsd_cli.drafts.auto import AutoSource

TESTS = Path(__file__).parent
ARCHITECTURE = TESTS.parent / "docs" / "architecture.md"
MODEL_METHODS = [r.name for r in METHODS if r.model]


def _choices(parameter: str) -> tuple[str, ...]:
    """The choices `hsd convert` declares for one of its parameters (its Literal)."""
    annotated = typing.get_type_hints(convert, include_extras=True)[parameter]
    return typing.get_args(typing.get_args(annotated)[0])


def _module(row) -> str:
    return row.code.split(":")[0].rsplit(".", 1)[1]


def test_the_command_line_offers_exactly_the_registered_names():
    assert _choices("method") == names(METHODS)
    assert _choices("engine") == names(ENGINES)
    assert _choices("draft_source") == draft_source_choices() == (AUTO_SOURCE, *names(DRAFT_SOURCES))
    assert (*MODEL_METHODS, *EXTERNAL) == BENCH_METHODS  # hsd bench: every method with a model, transformers
    assert BASELINE in MODEL_METHODS  # what hsd bench pairs every method with
    for rows in (METHODS, DRAFT_SOURCES, ENGINES):
        assert len(set(names(rows))) == len(rows) and AUTO_SOURCE not in names(DRAFT_SOURCES)


def test_the_command_line_refuses_an_unregistered_name(tmp_path):
    for flag in ("--method", "--engine", "--draft-source"):
        result = CliRunner().invoke(app, ["convert", str(tmp_path), "-o", str(tmp_path / "out"), flag, "nonesuch"])
        assert result.exit_code == 2  # a usage error, before any input is read or model looked for


def test_every_registered_name_passes_run_config_and_no_other():
    for row in METHODS:
        assert RunConfig(inputs=(), out_dir=Path("."), method=row.name).method == row.name
    for name in draft_source_choices():
        assert RunConfig(inputs=(), out_dir=Path("."), draft_source=name).draft_source == name
    for row in ENGINES:
        assert RunConfig(inputs=(), out_dir=Path("."), engine=row.name, images=row.images).engine == row.name
    for field in ("method", "draft_source", "engine"):
        with pytest.raises(ValueError, match="must be one of"):
            RunConfig(inputs=(), out_dir=Path("."), **{field: "nonesuch"})


@pytest.mark.parametrize("row", METHODS, ids=names(METHODS))
def test_a_method_declares_its_name_and_capabilities(row):
    cls = load(row)
    if not row.model:  # the draft pipeline: a page converter of its own, no model
        converter = cls()
        assert converter.method == row.name and converter.uses_drafts
        return
    method = cls()
    assert method.name == row.name
    assert isinstance(method.uses_drafts, bool) and isinstance(method.prices_crops, bool)
    assert callable(method.for_page)  # the method that decodes a page (auto picks one; the others are themselves)


@pytest.mark.parametrize("row", DRAFT_SOURCES, ids=names(DRAFT_SOURCES))
def test_a_draft_source_carries_its_prior_and_validity(row):
    cls = load(row)
    source = cls(threads=1)
    assert isinstance(cls.name, str) and cls.name and isinstance(cls.exact, bool)
    first, cont = cls.prior
    assert 0.0 < first < 1.0 and 0.0 < cont < 1.0
    assert isinstance(cls.wants_layout, bool) and isinstance(cls.wants_ocr_render, bool)
    assert callable(source.reads) and callable(source.regions)


def test_draft_sources_have_names_of_their_own_and_auto_always_finds_one():
    report_names = [load(r).name for r in DRAFT_SOURCES]
    assert len(set(report_names)) == len(report_names)
    blank = PageImage(Path("blank.png"), 0, Image.new("RGB", (64, 64), "white"), 72)
    last = load(DRAFT_SOURCES[-1])(threads=1)
    assert last.reads(blank)  # `auto` falls back to the last source: it must read any page
    auto = AutoSource(AUTO_SOURCE)
    assert list(auto.sources) == list(names(DRAFT_SOURCES))


@pytest.mark.parametrize("row", ENGINES, ids=names(ENGINES))
def test_an_engine_runs_a_run_config(row):
    run = load(row)
    params = inspect.signature(run).parameters
    assert list(params)[0] == "cfg" and {"quiet", "debug", "stdin"} <= set(params)


@pytest.mark.parametrize(
    ("rows", "folder"), [(METHODS, "methods"), (DRAFT_SOURCES, "drafts")], ids=["methods", "draft sources"]
)
def test_every_method_and_draft_source_has_its_own_tests(rows, folder):
    """tests/<folder>/test_<module>.py for each registered module."""
    missing = [r.name for r in rows if not (TESTS / folder / f"test_{_module(r)}.py").is_file()]
    assert not missing


def test_where_to_add_names_the_registries():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    where = text[text.index("## Where to add") :]
    for name in ("METHODS", "DRAFT_SOURCES", "ENGINES", "config.py", "tests/test_registries.py"):
        assert name in where


def _prepared() -> PreparedPage:
    img = Image.new("RGB", (320, 200), "white")
    draw = ImageDraw.Draw(img)
    regions = (
        Region((10, 10, 300, 40), RegionKind.TITLE, 0, "Registered methods", level=1),
        Region((10, 60, 300, 180), RegionKind.TEXT, 1, "Every method equals greedy decoding at tau one."),
    )
    for r in regions:
        draw.text((r.bbox[0] + 5, r.bbox[1] + 5), r.text, fill="black")
    return PreparedPage(PageImage(Path("registry.png"), 0, img, 72), regions, "test")


def test_every_method_with_a_model_is_lossless(tiny_target):
    """At tau = 1 each registered method writes exactly the AR tokens (a new method is held to it)."""
    from hsd_cli.driver.choose import converter_with

    target, prepared = tiny_target("hunyuan_vl"), _prepared()
    tokens = {}
    for name in MODEL_METHODS:
        spec = SpecConfig(max_new_tokens=32)
        converter = converter_with(
            target, RunConfig(inputs=(), out_dir=Path("."), method=name, spec=spec, baseline=True)
        )
        result, out = converter.verify(prepared)
        tokens[name] = out.tokens
        # --baseline runs AR beside every method that verifies drafts, and finds it identical
        assert result.identical_to_ar is (True if converter.method_obj.uses_drafts else None)
    assert len(tokens["ar"]) > 5 and all(t == tokens["ar"] for t in tokens.values())
