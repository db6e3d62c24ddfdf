"""`hsd bench`: the options of a measured run -> BenchConfig -> bench.main."""

from __future__ import annotations

import contextlib
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from hsd_cli.bench.config import BENCH_METHODS
from hsd_cli.cli import checks
from hsd_cli.cli.errors import one_line_errors, usage_errors
from hsd_cli.cli.options import Debug, Device, Dpi, Dtype, Graphs, JsonOut, MaxPages, Pages, opt, with_spec_knobs
from hsd_cli.config import DEFAULT_MODEL, SpecConfig

BenchInputs = Annotated[
    list[str] | None, typer.Argument(help="PDF/image files or folders.", metavar="INPUTS", show_default=False)
]
Model = Annotated[str, opt("--model", "Target model: hub id or local directory.")]
Methods = Annotated[
    str,
    opt(
        "--methods",
        f"Comma list of {', '.join(BENCH_METHODS)} (lookup: HF prompt lookup; hf-static: HF generate on its"
        " static cache, compiled on a GPU).",
    ),
]
# HSD_BENCH_JSON: this option's name before --json became "print the result on stdout" in every command
OutJson = Annotated[
    Path | None,
    opt("--out-json", "Write the full report (JSON) here.", envvar=["HSD_OUT_JSON", "HSD_BENCH_JSON"]),
]
Markdown = Annotated[Path | None, opt("--markdown", "Replace this run's section of a results file (Markdown).")]
CropNoise = Annotated[
    float,
    opt(
        "--crop-noise",
        "With --oracle: Stage-1 crop references are the region's span of the page truth corrupted at this rate (0-1).",
    ),
]
Oracle = Annotated[bool, opt("--oracle", "Force the target's greedy choice to the ground truth (corpus files).")]
Noise = Annotated[float | None, opt("--noise", "With --oracle: drafts = the reference corrupted at this rate (0-1).")]
NoiseSweep = Annotated[
    str | None, opt("--noise-sweep", "With --oracle: comma list of noise rates to measure, e.g. 0,0.05,0.1,0.2,0.4.")
]
Plot = Annotated[Path | None, opt("--plot", "With --noise-sweep: write the PNG plot here.")]
Warmup = Annotated[int, opt("--warmup", "Untimed warm-up runs of every method on the first page.", min=0)]
Repeat = Annotated[int, opt("--repeat", "Timed runs per page and method; the fastest counts.", min=1)]
FullSize = Annotated[
    str | None,
    opt(
        "--full-size",
        "Full-size random-weight network of this family: with inputs, the target (tokenizer and processor from --model DIR of the same family); alone, the cost curve.",  # noqa: E501
    ),
]
CostPrompt = Annotated[int, opt("--cost-prompt", "With --full-size: prompt tokens in the KV cache.", min=1)]
CostReps = Annotated[
    int, opt("--cost-reps", "With --full-size: repetitions per tree size (the fastest counts).", min=1)
]
MaxPixels = Annotated[
    int | None,
    opt(
        "--max-pixels",
        "Downscale the page image the target sees to at most this many pixels (drafts still come from the full --dpi render) [default: the model's own cap].",  # noqa: E501
        min=784,
    ),
]
BatchPagesList = Annotated[
    str | None,
    opt(
        "--batch-pages",
        "Throughput instead: every page through ar and each method at these batch sizes (e.g. 1,4,8,16), "
        "decode tokens/s and pages/min per method and batch size.",
    ),
]
BenchWorkers = Annotated[
    int,
    opt(
        "--workers",
        "With --batch-pages: render and draft pages in this many background processes beside "
        "verification, as hsd convert --workers does (pages/min is then the run's wall time); "
        "0 = made beforehand and charged one after another.",
        min=0,
    ),
]
Fill = Annotated[
    int,
    opt(
        "--fill",
        "With --batch-pages: at each batch size decode at least this many batches of pages, the pages "
        "repeated in order, so rows that finish are refilled as in a folder conversion; 0 = each page once.",
        min=0,
    ),
]
Threads = Annotated[int | None, opt("--threads", "Torch CPU threads [default: every core].", min=1)]


@with_spec_knobs
def bench(
    knobs: dict[str, Any],
    inputs: BenchInputs = None,
    model: Model = DEFAULT_MODEL,
    methods: Methods = "ar,page,hsd,auto",
    out_json: OutJson = None,
    markdown: Markdown = None,
    pages: Pages = None,
    max_pages: MaxPages = None,
    dpi: Dpi = 144,
    crop_noise: CropNoise = 0.05,
    oracle: Oracle = False,
    noise: Noise = None,
    noise_sweep: NoiseSweep = None,
    plot: Plot = None,
    warmup: Warmup = 1,
    repeat: Repeat = 1,
    full_size: FullSize = None,
    cost_prompt: CostPrompt = 1024,
    cost_reps: CostReps = 3,
    max_pixels: MaxPixels = None,
    device: Device = "auto",
    dtype: Dtype = "auto",
    graphs: Graphs = True,
    threads: Threads = None,
    batch_pages: BatchPagesList = None,
    workers: BenchWorkers = 0,
    fill: Fill = 0,
    json_output: JsonOut = False,
    debug: Debug = False,
) -> None:
    """Measure AAL, steps, SR_decode and SR_e2e of each method on the same pages (paper sec. 4.2)."""
    options = dict(locals())
    with one_line_errors(debug), tempfile.TemporaryDirectory() as tmp:
        report = out_json or (Path(tmp) / "report.json" if json_output else None)
        with usage_errors():
            cfg = _bench_config(options, report)
            checks.environment()
        from hsd_cli.bench.main import bench as run_bench

        with contextlib.redirect_stdout(sys.stderr if json_output else sys.stdout):
            code = run_bench(cfg)
        if json_output:  # the same report --out-json writes, and nothing else on stdout
            typer.echo(report.read_text(encoding="utf-8").rstrip("\n"))
    raise typer.Exit(code)


def _bench_config(o: dict[str, Any], report: Path | None):  # noqa: ANN202 - a BenchConfig
    """The bench configuration from the command's options (ValueError on a bad combination)."""
    from hsd_cli.bench.config import BenchConfig  # out of the import of `hsd convert`, which never needs it

    return BenchConfig(
        inputs=tuple(Path(p) for p in o["inputs"] or ()),
        methods=tuple(o["methods"].split(",")),
        knobs=SpecConfig(**o["knobs"]),
        noise_sweep=tuple(float(x) for x in (o["noise_sweep"] or "").split(",") if x),
        batch_pages=tuple(int(x) for x in (o["batch_pages"] or "").split(",") if x),
        json_path=report,
        markdown_path=o["markdown"],
        plot_path=o["plot"],
        **{k: o[k] for k in _PLAIN},
    )


# Options that go into BenchConfig as they are.
_PLAIN = (
    "model",
    "pages",
    "max_pages",
    "dpi",
    "crop_noise",
    "oracle",
    "noise",
    "warmup",
    "repeat",
    "device",
    "dtype",
    "graphs",
    "full_size",
    "cost_prompt",
    "cost_reps",
    "threads",
    "max_pixels",
    "workers",
    "fill",
)
