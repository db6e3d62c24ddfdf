"""Issue 12 outputs: --images (figure crops linked in reading order), --format json (blocks with
boxes, validated against docs/hsd-document.schema.json), coverage, and provenance of every span."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import jsonschema
import pymupdf
import pytest
from fakes import FIGURE_RECT, make_figure_pdf
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from hsd_cli.bench.oracle import OracleTarget
from hsd_cli.cli.app import app
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import Block, PageImage, PreparedPage, Region, RegionKind
from hsd_cli.drafts.markup import page_markdown
from hsd_cli.driver.choose import converter_with
from hsd_cli.methods.crops import crop_region
from hsd_cli.report.blocks import attach, coverage
from hsd_cli.report.figures import insert_links
from hsd_cli.report.tables import table_html

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_docs"
SCHEMA = json.loads((ROOT / "docs" / "hsd-document.schema.json").read_text())
LINK = re.compile(r"!\[([^\]]*)\]\(([^)]+)\)")


def _convert(inputs: list[Path], out: Path, *args: str) -> None:
    argv = ["convert", *map(str, inputs), "-o", str(out), "--method", "draft", "--workers", "0", "--quiet"]
    result = CliRunner().invoke(app, [*argv, "--images", "--format", "md,json", *args])
    assert result.exit_code == 0, result.output


def _check_document(out: Path, name: str) -> dict:
    """Schema-valid JSON, reading order per page, every figure crop on disk and linked once."""
    doc = json.loads((out / f"{name}.json").read_text())
    jsonschema.validate(doc, SCHEMA)
    markdown = (out / f"{name}.md").read_text()
    links = [m.group(2) for m in LINK.finditer(markdown)]
    for page in doc["pages"]:
        orders = [b["order"] for b in page["blocks"]]
        assert orders == sorted(orders)
        for b in page["blocks"]:
            if b["kind"] == "figure":
                assert (out / b["image"]).is_file() and links.count(b["image"]) == 1
    return doc


@pytest.mark.slow
def test_sample_docs_draft_outputs_validate(tmp_path):
    docs = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".pdf", ".png"))
    _convert(docs, tmp_path)
    for path in docs:
        doc = _check_document(tmp_path, path.stem)
        assert doc["markdown"] == f"{path.stem}.md" and doc["pages"][0]["size_px"]


@pytest.mark.slow
def test_figure_is_cropped_and_linked_in_reading_order(tmp_path):
    """The embedded picture is the figure (the layout model gives it no box): cropped whole, linked
    after the paragraph before it, paired with its caption; without --images a placeholder stands."""
    pdf = make_figure_pdf(tmp_path / "fig.pdf")
    _convert([pdf], tmp_path / "out")
    doc = _check_document(tmp_path / "out", "fig")
    (fig,) = [b for b in doc["pages"][0]["blocks"] if b["kind"] == "figure"]
    assert fig["image"] == "fig/figures/page-0001-1.png"
    assert fig["caption"].startswith("Figure 1: Accepted tokens")
    assert [round(v) for v in fig["bbox_pt"]] == list(FIGURE_RECT)
    crop = Image.open(tmp_path / "out" / fig["image"])
    assert abs(crop.width - 400 * 2) <= 2 and crop.getpixel((crop.width // 2, crop.height - 50))[2] > 150
    md = (tmp_path / "out" / "fig.md").read_text()
    before, after = md.index("each step accepts."), md.index("second paragraph")
    assert before < md.index("![Figure 1: Accepted tokens") < after
    plain = tmp_path / "plain"
    CliRunner().invoke(app, ["convert", str(pdf), "-o", str(plain), "--method", "draft", "--quiet"])
    plain_md = (plain / "fig.md").read_text()
    assert "![" not in plain_md and not (plain / "fig.json").exists()
    assert plain_md.index("each step accepts.") < plain_md.index("<!-- image -->") < plain_md.index("Figure 1:")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["born_digital.pdf", "two_columns.pdf"])
def test_block_boxes_hold_their_text_layer_words(tmp_path, name):
    """Draft method: every word of a block's text is a text-layer word inside the block's box."""
    _convert([SAMPLES / name], tmp_path)
    doc = _check_document(tmp_path, Path(name).stem)
    with pymupdf.open(SAMPLES / name) as pdf:
        for page in doc["pages"]:
            words = pdf[page["page"] - 1].get_text("words")
            for b in page["blocks"]:
                for word in _words(b["text"]):
                    assert any(w[4] == word and _inside(w[:4], b["bbox_pt"]) for w in words), (word, b)


def _words(text: str) -> list[str]:
    """The block's words as the text layer spells them (markup characters dropped)."""
    return [w for w in re.sub(r"(^#+ )|[|$]|^-+$", " ", text, flags=re.M).split() if w.strip("-")]


def _inside(box, outer, slack: float = 2.0) -> bool:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return outer[0] - slack <= cx <= outer[2] + slack and outer[1] - slack <= cy <= outer[3] + slack


# --- provenance with a model whose output is forced (oracle) -----------------------------------

REGIONS = (
    Region((10, 10, 300, 40), RegionKind.TITLE, 0, "Speculative pages", level=1),
    Region((10, 50, 300, 110), RegionKind.TEXT, 1, "The first paragraph says what the method does."),
    Region((10, 120, 300, 200), RegionKind.FIGURE, 2, ""),
    Region((10, 210, 300, 240), RegionKind.CAPTION, 3, "Figure 1: a chart."),
    Region((10, 250, 300, 330), RegionKind.TEXT, 4, "The second paragraph follows the figure."),
)


def _page() -> PageImage:
    img = Image.new("RGB", (320, 360), "white")
    draw = ImageDraw.Draw(img)
    for r in REGIONS:
        draw.text((r.bbox[0] + 5, r.bbox[1] + 5), r.text or "[chart]", fill="black")
    return PageImage(Path("prov.png"), 0, img, 72)


@pytest.fixture
def forced(tiny_target):
    target = OracleTarget(tiny_target("qwen2_5_vl"))
    page = _page()
    style = target.family.style
    for r in REGIONS:
        if r.text:  # Stage-1 crops write their region's text
            target.expect(crop_region(page.image, r.bbox), target.encode(r.text))
    target.expect(page.image, target.encode(page_markdown(list(REGIONS), style)))
    yield target, PreparedPage(page, REGIONS, "test")
    target.clear()


@pytest.mark.slow
@pytest.mark.parametrize("method", ["page", "hsd"])
def test_provenance_credits_each_span_to_its_region(forced, method):
    target, prepared = forced
    cfg = RunConfig(inputs=(), out_dir=Path("."), method=method, spec=SpecConfig(max_new_tokens=200))
    result = converter_with(target, cfg).convert(prepared)
    texts = {b.order: b.text for b in result.blocks}
    assert texts == {0: "Speculative pages", 1: REGIONS[1].text, 2: "", 3: REGIONS[3].text, 4: REGIONS[4].text}
    assert all(b.source == "verified" for b in result.blocks)
    for b in result.blocks:
        if b.kind != "figure":  # most of each block's tokens come from that region's own draft
            assert b.from_draft >= b.tokens // 2 and b.tokens > 0
    assert sum(b.tokens for b in result.blocks) == result.tokens
    assert result.blocks[2].caption == REGIONS[3].text
    assert set(result.coverage) == {"title", "text", "caption", "model"}
    # Each share is rounded to 6 places, so 4 kinds may sum to 1 +- 4 * 5e-7.
    assert sum(result.coverage.values()) == pytest.approx(1, abs=1e-5) and result.coverage["text"] > 0.4
    with_images = [replace(b, image="p/f.png") if b.kind == "figure" else b for b in result.blocks]
    linked = insert_links(result.markdown, with_images)
    assert linked.index("does.") < linked.index("![Figure 1: a chart.](p/f.png)") < linked.index("Figure 1: a chart.\n")


@pytest.mark.slow
def test_ar_output_is_one_model_block(forced):
    target, prepared = forced
    cfg = RunConfig(inputs=(), out_dir=Path("."), method="ar", spec=SpecConfig(max_new_tokens=200))
    result = converter_with(target, cfg).convert(replace(prepared, regions=()))
    (block,) = result.blocks
    assert block.source == "model" and block.tokens == result.tokens and result.coverage == {"model": 1.0}
    assert block.bbox == (0.0, 0.0, 320.0, 360.0)


# --- the parts --------------------------------------------------------------------------------


def test_model_runs_join_their_neighbours():
    # region 0, model tokens with a line break, region 1: up to the break -> 0, the rest -> 1
    owners = [0, 0, -1, -1, -1, 1, 1]
    breaks = [False, False, False, True, False, False, False]
    assert attach(owners, breaks) == [0, 0, 0, 0, 1, 1, 1]
    assert attach([-1, -1, 2, -1], [False] * 4) == [2, 2, 2, 2]
    assert attach([0, -1, 1], [False] * 3) == [0, 0, 1]  # no break: the region before
    assert attach([-1, -1], [True, True]) == [-1, -1]


def test_coverage_shares_per_kind():
    regions = [Region((0, 0, 1, 1), RegionKind.TEXT, 0, "a"), Region((0, 0, 1, 1), RegionKind.TABLE, 1, "b")]
    assert coverage([0, 0, 1, -1], regions) == {"model": 0.25, "table": 0.25, "text": 0.5}
    assert coverage([], regions) == {}


def test_tables_become_html():
    assert table_html("x\n\n<table><tr><td>1</td></tr></table>\n") == "<table><tr><td>1</td></tr></table>"
    pipe = "| a | b \\| c |\n|---|---|\n| 1 | <2> |"
    assert table_html(pipe) == "<table><tr><th>a</th><th>b | c</th></tr><tr><td>1</td><td>&lt;2&gt;</td></tr></table>"
    assert table_html("no table here") is None
    assert table_html("| a |\n| - |\n| 1 |") == "<table><tr><th>a</th></tr><tr><td>1</td></tr></table>"


def test_figure_without_text_before_it_goes_first_and_unknown_text_is_passed_over():
    blocks = [
        Block("figure", (0, 0, 1, 1), 0, "", image="a.png"),
        Block("text", (0, 0, 1, 1), 1, "Alpha."),
        Block("text", (0, 0, 1, 1), 2, "Not in the Markdown."),
        Block("figure", (0, 0, 1, 1), 3, "", caption="Chart", image="b.png"),
    ]
    assert insert_links("Alpha.\n\nBeta.\n", blocks) == "![Figure 1](a.png)\n\nAlpha.\n\n![Chart](b.png)\n\nBeta.\n"
