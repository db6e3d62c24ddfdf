"""`hsd bench`: the CLI end to end on tiny models, plus the pieces that need no model.

Timings are never asserted: only structure, counts and the lossless check.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from random import Random

import pymupdf
import pytest
from typer.testing import CliRunner

from hsd_cli.bench.config import BenchConfig
from hsd_cli.bench.corpus import corpus_doc
from hsd_cli.bench.noise import corrupt_text, noisy_regions
from hsd_cli.bench.records import MethodRun, PageBench
from hsd_cli.bench.reference import assign_blocks, region_spans
from hsd_cli.bench.report import group_totals, table_rows, update_section
from hsd_cli.bench.restyle import restyle
from hsd_cli.cli.app import app
from hsd_cli.datatypes import Region, RegionKind
from hsd_cli.drafts.markup import MARKDOWN, DraftStyle

REPO = Path(__file__).resolve().parents[2]
HTML = DraftStyle(table="html")


def _bench(args: list[str]) -> tuple[int, str]:
    """`hsd bench ARGS` in-process, on one torch thread: by default it takes every core, and tiny
    models run several times slower on two threads than on one while other work shares the CPU."""
    result = CliRunner().invoke(app, ["bench", *args, "--threads", "1"])
    return result.exit_code, result.output


@pytest.mark.slow
def test_bench_on_sample_docs(tiny_model_dir, tmp_path):
    """ar, page and hsd on every sample page; page and hsd identical to AR (tau = 1, fp32)."""
    out = tmp_path / "results.json"
    code, output = _bench(
        [
            str(REPO / "sample_docs"),
            "--model",
            str(tiny_model_dir("qwen2_5_vl")),
            "--methods",
            "ar,page,hsd",
            "--max-new-tokens",
            "64",
            "--device",
            "cpu",
            "--dtype",
            "fp32",
            "--out-json",
            str(out),
        ]
    )
    assert code == 0, output
    report = json.loads(out.read_text())
    assert report["schema_version"] == 1 and "hsd bench" in report["command"]
    assert report["pages"] and all(set(p["runs"]) == {"ar", "page", "hsd"} for p in report["pages"])
    for page in report["pages"]:
        assert page["runs"]["page"]["identical_to_ar"] is True
        assert page["runs"]["hsd"]["identical_to_ar"] is True
    overall = {t["method"]: t for t in report["totals"]["overall"]}
    assert overall["hsd"]["identical"] == overall["hsd"]["compared"] == len(report["pages"])
    assert {"born-digital", "scanned", "image"} <= set(report["totals"])  # sample_docs has all three


def _tiny_corpus(root: Path) -> Path:
    """A corpus folder: one PDF with Markdown ground truth and one without any."""
    (root / "docs").mkdir(parents=True)
    pdf = shutil.copy(REPO / "sample_docs" / "born_digital.pdf", root / "docs" / "paper.pdf")
    with pymupdf.open(pdf) as doc:
        gt = "\n\n".join(page.get_text().strip() for page in doc)
    (root / "docs" / "paper.md").write_text("# Sample\n\n" + gt, encoding="utf-8")
    shutil.copy(REPO / "sample_docs" / "two_columns.pdf", root / "docs" / "no_gt.pdf")
    items = [
        {
            "id": "docs/paper",
            "file": "docs/paper.pdf",
            "kind": "born-digital",
            "pages": 2,
            "ground_truth": [{"file": "docs/paper.md", "format": "markdown"}],
        },
        {
            "id": "docs/no_gt",
            "file": "docs/no_gt.pdf",
            "kind": "born-digital",
            "pages": 1,
            "ground_truth": [{"file": "tests.jsonl", "format": "jsonl"}],
        },
    ]
    (root / "manifest.json").write_text(json.dumps({"set": "t", "items": items}))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("noise", [None, "0.2"])
def test_oracle_bench_on_a_tiny_corpus(tiny_model_dir, tmp_path, noise):
    """Oracle mode: documents without Markdown ground truth are skipped; outputs say 'oracle target'."""
    corpus, out, md = _tiny_corpus(tmp_path / "corpus"), tmp_path / "o.json", tmp_path / "R.md"
    args = [
        str(corpus),
        "--model",
        str(tiny_model_dir("qwen2_5_vl")),
        "--oracle",
        "--methods",
        "ar,page,hsd",
        "--max-new-tokens",
        "32",
        "--max-pages",
        "1",
        "--warmup",
        "0",
        "--cost-model",
        "flat",  # trees not sized by a curve measured while other tests load the machine
        "--out-json",
        str(out),
        "--markdown",
        str(md),
    ] + (["--noise", noise] if noise else [])
    code, output = _bench(args)
    assert code == 0, output
    report = json.loads(out.read_text())
    assert [p["source"].endswith("paper.pdf") for p in report["pages"]] == [True]
    assert any("no_gt.pdf" in s for s in report["skipped"])
    page = report["pages"][0]
    assert page["ref_tokens"] > 32 and page["runs"]["ar"]["tokens"] == 32  # the budget cut it
    assert page["runs"]["page"]["aal"] > 1.0  # drafts of the reference are accepted
    assert "oracle target" in md.read_text() and "oracle target" in output


def test_failed_method_is_a_row_not_a_gap():
    """A method that crashed on every page keeps its row and says why."""
    ar = MethodRun("ar", tokens=10, steps=9, seq_steps=9, t_decode=1.0, t_total=2.0)
    bad = MethodRun("lookup", error="ValueError: Image features and image tokens do not match")
    page = PageBench("x.pdf", 1, "scanned", runs={"ar": ar, "lookup": bad})
    rows = table_rows(group_totals([page], ("ar", "lookup")))
    lookup = [r for r in rows if r[:2] == ["overall", "lookup"]][0]
    assert lookup[-1] == "failed: ValueError: Image features and image tokens do not match"
    assert lookup[2] == "0"


def test_totals_are_ratios_of_sums():
    """SR over pages = total AR time / total method time, not the mean of per-page ratios."""

    def page(ar_t: float, m_t: float) -> PageBench:
        return PageBench(
            "x",
            1,
            "image",
            runs={
                "ar": MethodRun("ar", t_decode=ar_t, t_total=ar_t),
                "page": MethodRun("page", seq_steps=2, accepted=6, t_draft=m_t / 2, t_decode=m_t / 2, t_total=m_t),
            },
        )

    (tot,) = [
        t for t in group_totals([page(1.0, 1.0), page(9.0, 1.0)], ("ar", "page"))["overall"] if t.method == "page"
    ]
    assert tot.sr_decode == pytest.approx(5.0)  # Not (1 + 9) / 2
    assert tot.aal == 3.0


def test_blocks_are_assigned_to_pages_in_order():
    """Each block goes to the page that contains it, never back to an earlier page."""
    pages = ["alpha beta gamma delta", "epsilon zeta eta theta", "iota kappa lambda"]
    blocks = ["alpha beta", "## gamma delta", "zeta eta", "iota kappa", "<!-- image -->"]
    assert assign_blocks(blocks, pages) == [0, 0, 1, 2, 2]


def test_pages_that_read_alike_share_the_blocks_by_position():
    """Two near-identical pages tie on every block: the first half goes to page 1, the rest to page 2."""
    text = "Quarterly statement of accounts for the period, balance carried forward and totals"
    blocks = [f"{text} item {i}" for i in range(10)]
    assert assign_blocks(blocks, [text, text]) == [0] * 5 + [1] * 5


def test_region_reference_is_the_best_matching_span():
    """A region's reference is the span of the page reference its draft matches, widened to words."""
    ref = "# Title\n\nThe quick brown fox jumps over the lazy dog.\n\nAnother paragraph here."
    regions = [
        Region((0, 0, 1, 1), RegionKind.TEXT, 0, "quick brwn fox jumps"),
        Region((0, 0, 1, 1), RegionKind.TEXT, 1, "zzzz qqqq"),
    ]
    assert [ref[a:b] for a, b in region_spans(regions, ref, MARKDOWN)] == ["quick brown fox jumps", ""]


def test_restyle_writes_tables_in_the_targets_convention():
    """Pipe tables become HTML for an HTML-table target and back; figure comments are dropped."""
    md = "## T\n\n<!-- image -->\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert restyle(md, HTML) == "## T\n\n<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"
    assert restyle(restyle(md, HTML), MARKDOWN).endswith("| a | b |\n|---|---|\n| 1 | 2 |")


def test_restyle_reads_delimiter_rows_of_one_hyphen():
    """GFM's delimiter row may hold one hyphen a cell (docling writes "| - |"); such a table is
    restyled too, not left as a pipe table the HTML-writing target never writes."""
    md = "| a | b |\n| - | :-: |\n| 1 | 2 |"
    assert restyle(md, HTML) == "<table><tr><td>a</td><td>b</td></tr><tr><td>1</td><td>2</td></tr></table>"
    assert restyle("| a |\n- item", HTML) == "| a |\n- item"  # a list item is no delimiter row


def test_noise_is_seeded_and_scales_with_the_rate():
    """Rate 0 is the reference itself; higher rates edit more; the same seed gives the same text."""
    text = " ".join(f"word{i}" for i in range(200))
    assert corrupt_text(text, 0.0, Random(1)) == text
    assert corrupt_text(text, 0.2, Random(1)) == corrupt_text(text, 0.2, Random(1))
    changed = [
        sum(a != b for a, b in zip(text.split(), corrupt_text(text, r, Random(2)).split(), strict=False))
        for r in (0.05, 0.4)
    ]  # noqa: E501
    assert 0 < changed[0] < changed[1]
    regions, clean = noisy_regions("# A\n\nb c d\n\ne f", (100, 300), 0.0, Random(0))
    assert [r.text for r in regions] == clean == ["# A", "b c d", "e f"]


def test_corpus_doc_reads_the_manifest(tmp_path):
    """Files listed in a parent folder's manifest get their kind and Markdown ground truth."""
    corpus = _tiny_corpus(tmp_path)
    doc = corpus_doc(corpus / "docs" / "paper.pdf")
    assert doc.kind == "born-digital" and doc.markdown_gt == corpus / "docs" / "paper.md"
    assert corpus_doc(corpus / "docs" / "no_gt.pdf").markdown_gt is None
    assert corpus_doc(REPO / "sample_docs" / "page.png") is None


def test_results_section_is_replaced_not_appended(tmp_path):
    """Rerunning a benchmark replaces its own section and keeps the others."""
    path = tmp_path / "RESULTS.md"
    update_section(path, "a", "first")
    update_section(path, "b", "other")
    update_section(path, "a", "second")
    text = path.read_text()
    assert "second" in text and "first" not in text and text.index("second") < text.index("other")


def test_noise_needs_the_oracle():
    """--noise without --oracle is a usage error: the clean draft is the reference."""
    with pytest.raises(ValueError, match="oracle"):
        BenchConfig(inputs=(Path("x.pdf"),), noise=0.1)
    assert _bench(["x.pdf", "--noise", "0.1"])[0] == 2


def test_cost_trees_have_exactly_the_asked_size():
    """The full-size cost curve times trees of exactly K tokens (root included)."""
    from hsd_cli.targets.runtime.costs import SIZES, tree_of

    for k in SIZES:
        ids, anc, depth = tree_of(k, vocab=5000)
        assert ids.shape == (1, k) and anc.shape == (1, k, k)
        assert int(depth.max()) <= 16


def test_throughput_at_several_batch_sizes(tiny_model_dir, tmp_path):
    """--batch-pages: one totals row per method and batch size, pages really batched, outputs equal AR."""
    out = tmp_path / "tp.json"
    args = [str(REPO / "sample_docs"), "--model", str(tiny_model_dir("qwen2_5_vl")), "--methods", "ar,page"]
    args += ["--max-new-tokens", "16", "--max-pages", "1", "--warmup", "0", "--batch-pages", "1,3"]
    code, output = _bench([*args, "--cost-model", "flat", "--out-json", str(out)])
    assert code == 0, output
    totals = json.loads(out.read_text())["totals"]
    assert [(t["method"], t["batch_pages"]) for t in totals] == [("ar", 1), ("page", 1), ("ar", 3), ("page", 3)]
    assert all(t["identical_to_ar"] == t["pages"] >= 3 for t in totals)
    assert all(t["decode_tokens_per_s"] > 0 and t["pages_per_min"] > 0 for t in totals)
    ar1, ar3 = totals[0], totals[2]
    assert ar1["rows_per_step"] == 1.0 < ar3["rows_per_step"] and ar3["forward_passes"] < ar1["forward_passes"]
    assert all(t["pass_s"] > 0 and t["priced_pass_s"] is None for t in totals)  # flat: no curve to price with
    # Where a pass's time went, by phase of the loop's clock; no CUDA graphs on the CPU.
    assert all({"align", "linearize", "forward", "readback", "commit"} <= set(t["phases_ms"]) for t in totals)
    assert all(t["phases_ms"]["forward"] > 0 and t["captures"] == 0 == t["capture_s"] for t in totals)
    # Per page, the passes its row took: the longest sets the batch's passes (no refill at the end).
    pages = totals[2]["per_page"]
    assert len(pages) == ar3["pages"] and all(p["row_steps"] <= ar3["forward_passes"] for p in pages)
    assert max(p["row_steps"] for p in pages) >= ar3["forward_passes"] // 3
    assert sum(p["tokens"] for p in pages) == ar3["tokens"] and pages[0]["page"].endswith("#1")


def test_a_throughput_run_cut_short_keeps_the_runs_it_finished(tiny_model_dir, tmp_path, monkeypatch):
    """The JSON and results section are written after every run: a lease that ends mid-command
    leaves the runs already measured, marked partial."""
    from hsd_cli.bench import throughput

    one, calls = throughput._one, []

    def cut(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt  # what a killed command looks like from inside
        return one(*args, **kwargs)

    monkeypatch.setattr(throughput, "_one", cut)
    out, md = tmp_path / "tp.json", tmp_path / "RESULTS.md"
    args = [str(REPO / "sample_docs"), "--model", str(tiny_model_dir("qwen2_5_vl")), "--methods", "ar,page"]
    args += ["--max-new-tokens", "8", "--max-pages", "1", "--warmup", "0", "--batch-pages", "1,2"]
    code, _ = _bench([*args, "--cost-model", "flat", "--out-json", str(out), "--markdown", str(md)])
    assert code != 0
    data = json.loads(out.read_text())
    assert [(t["method"], t["batch_pages"]) for t in data["totals"]] == [("ar", 1)]
    assert any(n.startswith("partial: 1 of 4 runs") for n in data["notes"]) and "partial: 1 of 4" in md.read_text()


def test_throughput_with_workers_prepares_pages_beside_verification(tiny_model_dir, tmp_path):
    """--workers N: every run drafts its pages again in N processes while the model verifies, the
    same drafts as the bench's, and pages/min is the run's own wall time."""
    out = tmp_path / "tp.json"
    args = [str(REPO / "sample_docs"), "--model", str(tiny_model_dir("qwen2_5_vl")), "--methods", "ar,page"]
    args += ["--max-new-tokens", "8", "--max-pages", "1", "--warmup", "0", "--batch-pages", "2", "--workers", "1"]
    code, output = _bench([*args, "--cost-model", "flat", "--out-json", str(out)])
    assert code == 0, output
    data = json.loads(out.read_text())
    assert "--workers 1" in data["command"] and any("background process" in n for n in data["notes"])
    for t in data["totals"]:
        assert t["prepared_beside"] and t["drafts_differ"] == 0 and t["identical_to_ar"] == t["pages"]
        assert t["pages_per_min"] == pytest.approx(60 * t["pages"] / t["wall_s"])
        assert 0 < t["wait_s"] < t["wall_s"]  # the first page's drafts at least are waited for


def test_throughput_filled_repeats_the_pages_so_finished_rows_are_refilled(tiny_model_dir, tmp_path):
    """--fill N: each batch size decodes at least N batches of pages, the pages again in order
    (drafted again by the workers), each copy held to its page's AR tokens."""
    from hsd_cli.bench.throughput import filled

    assert filled([1, 2, 3], 7) == [1, 2, 3, 1, 2, 3, 1] and filled([1, 2, 3], 2) == [1, 2, 3]
    out = tmp_path / "tp.json"
    args = [str(REPO / "sample_docs"), "--model", str(tiny_model_dir("qwen2_5_vl")), "--methods", "ar,page"]
    args += ["--max-new-tokens", "8", "--max-pages", "1", "--warmup", "0", "--batch-pages", "1,3", "--fill", "3"]
    code, output = _bench([*args, "--workers", "1", "--cost-model", "flat", "--out-json", str(out)])
    assert code == 0, output
    data = json.loads(out.read_text())
    assert "--fill 3" in data["command"]
    one, three = data["totals"][0]["pages"], data["totals"][2]["pages"]
    assert 3 <= one < 9 == three  # one page at a time: each page once; three: three batches
    for t in data["totals"]:
        assert t["identical_to_ar"] == t["pages"] and t["drafts_differ"] == 0
        names = [p["page"] for p in t["per_page"]]
        assert names == [names[i % one] for i in range(t["pages"])]
    with pytest.raises(ValueError, match="--fill"):
        BenchConfig(inputs=(Path("x.pdf"),), fill=2)


def test_throughput_with_slow_workers_starts_pages_before_their_drafts(tiny_model_dir, tmp_path, monkeypatch):
    """Drafting held back (HSD_DRAFT_DELAY): a drafting method's pages start once rendered, as hsd
    convert's do, the bench's own drafts join them when the workers' copies are made, and every
    page still equals AR."""
    monkeypatch.setenv("HSD_DRAFT_DELAY", "1.5")
    out = tmp_path / "tp.json"
    args = [str(REPO / "sample_docs"), "--model", str(tiny_model_dir("qwen2_5_vl")), "--methods", "ar,page"]
    args += ["--max-new-tokens", "8", "--max-pages", "2", "--warmup", "0", "--batch-pages", "2", "--workers", "1"]
    code, output = _bench([*args, "--cost-model", "flat", "--out-json", str(out)])
    assert code == 0, output
    data = json.loads(out.read_text())
    page = next(t for t in data["totals"] if t["method"] == "page")
    assert page["drafts_differ"] == 0 and page["identical_to_ar"] == page["pages"]
    assert page["wait_s"] < 1.5  # no page waited for its drafts (each takes 1.5 s more to make)
    assert any("join it when made" in n for n in data["notes"])


def test_throughput_rates_charge_prepare_once_and_leave_waits_out_of_decoding():
    """Pages prepared beforehand add their seconds to the run's; prepared beside it, the wall time
    holds them. Decode tok/s counts neither prefills nor waits for prepared pages."""
    from hsd_cli.bench.throughput import BatchRun

    run = BatchRun("auto", 4, 6, 300, 20.0, 5.0, 12.0, 3.0, False, 0, 10, 40, 80, 80, 6, 9.0, None)
    assert run.pages_per_min == pytest.approx(60 * 6 / 32.0)
    assert run.decode_tokens_per_s == pytest.approx(300 / 12.0)
    beside = replace(run, overlapped=True)
    assert (
        beside.pages_per_min == pytest.approx(60 * 6 / 20.0) and beside.decode_tokens_per_s == run.decode_tokens_per_s
    )
    with pytest.raises(ValueError, match="batch-pages"):
        BenchConfig(inputs=(Path("x.pdf"),), workers=2)


def test_throughput_prices_each_pass_at_its_rows_width_and_cache():
    """A pass of r rows padded to r x w tokens over c-slot caches costs cost.step(r, w, c): the sum
    is what the model charged."""
    from types import SimpleNamespace

    from hsd_cli.bench.throughput import _priced
    from hsd_cli.spec.budget import CostModel

    cost = CostModel(((1, 1.0), (8, 8.0)), ((1, 0.0), (4, 3.0)), slot=0.5)
    batcher = SimpleNamespace(rows_per_step=[2, 4], padded_per_step=[6, 4], slots_per_step=[3, 1])
    assert _priced(cost, batcher) == cost.step(2, 3, 3) + cost.step(4, 1, 1)
    assert _priced(cost, batcher) == (6.0 + 1.0 + 0.5 * 2 * 3) + (4.0 + 3.0 + 0.5 * 4 * 1)
    assert _priced(None, batcher) is None


def test_restyle_writes_inline_formulas_as_the_drafts_do():
    """A ground truth's inline formulas, padded or not, become the style's unpadded delimiters;
    display math and a `$` that holds no LaTeX stay as they are."""
    md = "A $ \\frac{2}{17} $ or $x_{1}$ for $5 and $10\n\n$$\na^2\n$$"
    assert restyle(md, MARKDOWN) == "A $\\frac{2}{17}$ or $x_{1}$ for $5 and $10\n\n$$\na^2\n$$"
    brackets = DraftStyle(formula="brackets")
    assert restyle(md, brackets) == "A \\(\\frac{2}{17}\\) or \\(x_{1}\\) for $5 and $10\n\n\\[\na^2\n\\]"


def test_a_pages_noise_does_not_depend_on_the_pages_before_it():
    """Each page draws its noise from its own stream: a subset run measures a page as the full run did."""
    from types import SimpleNamespace

    from PIL import Image

    from hsd_cli.bench.pages import BenchPage
    from hsd_cli.bench.run import Bench
    from hsd_cli.datatypes import PageImage

    target = SimpleNamespace(family=SimpleNamespace(style=MARKDOWN), eos_ids=(0,), repetition_penalty=1.0)
    cfg = BenchConfig(inputs=(Path("x.pdf"),), oracle=True, noise=0.3)
    text = "\n\n".join(" ".join(f"w{p}{i}" for i in range(40)) for p in range(4))

    def page(name: str) -> BenchPage:
        return BenchPage(PageImage(Path(name), 0, Image.new("RGB", (200, 300)), 72), "image", text)

    def drafts(order: list[str]) -> dict[str, list[str]]:
        bench = Bench(cfg, target)
        return {n: [r.text for r in bench.drafts(page(n)).regions] for n in order}

    alone, after = drafts(["b.png"]), drafts(["a.png", "b.png"])
    assert alone["b.png"] == after["b.png"]
    assert after["a.png"] != after["b.png"]  # pages do not share one stream either


def test_the_cost_curve_is_measured_on_the_engine_decoding_runs_on(tiny_target, monkeypatch):
    """`hsd bench --full-size` on CUDA decodes on hsd's static cache with graphs: its curve is timed
    there, every step and batch (an H200's table showed transformers' eager 25 ms where the graphs
    step 6-7 ms)."""
    from hsd_cli.bench import cost
    from hsd_cli.targets.runtime import costs
    from hsd_cli.targets.runtime.static_session import StaticEngine, StaticSession

    sessions = []
    real = costs.time_step
    monkeypatch.setattr(costs, "time_step", lambda session, k: sessions.append(session) or real(session, k))
    model = tiny_target("qwen2_5_vl").model
    _, points, batches, _ = cost.measure_curve(model, 16, 1, 3, StaticEngine("eager"))
    assert points[0].nodes == 1 and batches
    assert sessions and all(isinstance(s, StaticSession) for s in sessions)
