"""The `hsd` command line: options -> RunConfig -> runner -> exit code. No logic lives here."""

from __future__ import annotations

import contextlib
import json
import re
import sys
import traceback
from collections.abc import Iterator
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from hsd_cli import __version__
from hsd_cli.config import (
    DEFAULT_MODEL,
    RayConfig,
    RunConfig,
    SpecConfig,
    default_workers,
)
from hsd_cli.errors import HsdError, UsageError
from hsd_cli.pages.inputs import parse_shard
from hsd_cli.pipeline import local as runner
from hsd_cli.report.json import run_summary_to_json

try:  # typer >= 0.2x ships its own copy of click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException, NoArgsIsHelpError

EXAMPLES = """\
\b
Examples:
  hsd convert paper.pdf -o out/               (out/paper.md, out/paper/*.json)
  hsd convert scans/ --glob '*.png' -o out/           (a folder, recursively)
  find . -name '*.pdf' | hsd convert - -o out/        (paths from stdin)
  hsd convert docs/ -o out/ --shard 2/8               (one machine's share)
  hsd convert paper.pdf -o out/ --images --format md,json   (figure crops, out/paper.json blocks)

Rerunning the same command resumes: finished pages are skipped; --force redoes them.
Every run that gets past its arguments writes out/run-summary.json, whatever failed.

\b
Exit codes:
  0        all pages ok, truncated or skipped
  1        an input or page failed, or the output folder is not writable
  2        usage error
  3        model not found
  130/143  interrupted by SIGINT/SIGTERM (finished pages are kept)
"""

_SPEC = SpecConfig()
_RUN = RunConfig(inputs=(), out_dir=Path("."))
app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None)  # rich markup would eat "[default: ...]" notes


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"hsd {__version__}")
        raise typer.Exit()


def _opt(flag: str, help: str, *aliases: str, **kw: Any) -> Any:
    """A Typer option read from HSD_<FLAG> when not given."""
    envvar = "HSD_" + flag.removeprefix("--").replace("-", "_").upper()
    return typer.Option(flag, *aliases, help=help, envvar=envvar, **kw)


Inputs = Annotated[
    list[str],
    typer.Argument(help="PDF/image files, folders (recursive), or - (paths on stdin).",
                   show_default=False),
]  # fmt: skip
Out = Annotated[Path, _opt("--out", "Output folder (created if missing).", "-o")]
Model = Annotated[str, _opt("--model", "Target model: hub id or local directory.")]
# convert: None = not asked for, so a missing default model falls back to the draft pipeline.
ConvertModel = Annotated[
    str | None,
    _opt("--model", f"Target model: hub id or local directory [default: {DEFAULT_MODEL}; where it "
         "cannot be loaded and no model was asked for, the draft pipeline's output, with a warning].",
         show_default=False),
]  # fmt: skip
Method = Annotated[
    Literal["auto", "hsd", "page", "ar", "draft"],
    _opt("--method", "auto: per page, hsd or page, whichever the device's measured costs favour; "
         "hsd: two-stage speculative decoding; page: page-level speculative; "
         "ar: plain greedy decoding; draft: the draft pipeline alone, no model."),
]  # fmt: skip
MaxNodes = Annotated[
    int, _opt("--max-nodes", "Node budget: most draft tokens in one tree per verification step.", min=1)
]
NoCostTrees = Annotated[
    bool, _opt("--no-cost-trees", "Do not size trees by the device's measured forward cost; "
               "use every candidate up to --max-nodes.")
]  # fmt: skip
Workers = Annotated[
    int | None,
    _opt("--workers", "Background processes that render and draft the next pages while the model "
         "verifies the current one; 0 = none [default: from the core count].", min=0),
]  # fmt: skip
Engine = Annotated[
    Literal["local", "ray"],
    _opt("--engine", "local: this machine (--workers prepare pages); ray: a Ray cluster, many "
         "GPUs and machines, same outputs (pip install \"hsd-cli[ray]\"; docs/ray.md)."),
]  # fmt: skip
RayAddress = Annotated[
    str | None,
    _opt("--ray-address", "With --engine ray: the cluster to join, e.g. head:6379 or auto "
         "[default: start a local Ray instance].", show_default=False),
]  # fmt: skip
RayActors = Annotated[
    int | None,
    _opt("--ray-verify-actors", "With --engine ray: loaded models verifying pages [default: one "
         "per GPU of the cluster; 1 without GPUs].", min=1, show_default=False),
]  # fmt: skip
RayBatch = Annotated[
    int, _opt("--ray-batch", "With --engine ray: pages per prepare task (long documents are split "
              "into groups of this many pages).", min=1)
]  # fmt: skip
Tau = Annotated[
    float, _opt("--tau", "Acceptance threshold in (0, 1]; 1.0 = exact greedy match (lossless).")
]
Window = Annotated[int, _opt("--window", "Reference window n, in tokens.", min=1)]
MaxNew = Annotated[int, _opt("--max-new-tokens", "Token budget per page / region.", min=1)]
MaxDepth = Annotated[int, _opt("--max-depth", "Longest candidate continuation, in tokens.", min=1)]
MaxCand = Annotated[int, _opt("--max-candidates", "Candidates per verification step.", min=1)]
MinWindow = Annotated[
    int, _opt("--min-window", "Fall back to windows down to this many tokens when n finds nothing.", min=1)
]
RepeatGuard = Annotated[
    int,
    _opt("--repeat-guard", "Stop a page as truncated when its last N tokens loop with a period "
         "of at most N/8 tokens (0 = off).", min=0),
]  # fmt: skip
OnLoop = Annotated[
    Literal["stop", "draft"],
    _opt("--on-loop", "When the repeat guard finds a loop: stop (the page is truncated there), or "
         "draft: cut the loop after its first period and append the rest of the draft "
         "(report: loop_repaired)."),
]  # fmt: skip
Stage1Batch = Annotated[int, _opt("--stage1-batch", "Most region crops verified in one batch.", min=1)]
Pages = Annotated[str | None, _opt("--pages", "Pages, 1-based, e.g. 1-3,7 [default: all].")]
Dpi = Annotated[int, _opt("--dpi", "Render resolution in dots per inch (36-600).")]
MaxPages = Annotated[
    int | None, _opt("--max-pages", "At most the first N selected pages per document.", min=1)
]
DraftSrc = Annotated[
    Literal["auto", "text", "ocr"],
    _opt("--draft-source", "Drafts from the PDF text layer, OCR, or auto (text layer if any)."),
]
Glob = Annotated[
    str | None,
    _opt("--glob", "File-name pattern in folders, case-insensitive "
         "[default: pdf png jpg jpeg tif tiff webp]."),
]  # fmt: skip
Shard = Annotated[str, _opt("--shard", "Convert only shard i of N (i/N); stable across machines.")]
Force = Annotated[bool, _opt("--force", "Redo pages that already have a finished report.")]
Password = Annotated[str | None, _opt("--password", "Password for encrypted PDFs.")]
Device = Annotated[str, _opt("--device", "auto, cpu, cuda or cuda:N.")]
Dtype = Annotated[
    Literal["auto", "bf16", "fp16", "fp32"],
    _opt("--dtype", "Model dtype; fp32 makes tau=1 output identical to AR."),
]
Baseline = Annotated[bool, _opt("--baseline", "Also run plain AR decoding and report speedups.")]
NoStarts = Annotated[
    bool, _opt("--no-region-starts", "Stage 2: do not offer region beginnings as candidates.")
]
Images = Annotated[
    bool,
    _opt("--images", "Save figure regions as out/<name>/figures/page-NNNN-K.png and link them from "
         "the Markdown where they stand in reading order (with their caption when the layout found one)."),
]  # fmt: skip
Format = Annotated[
    str,
    _opt("--format", "Document outputs, comma-separated: md (out/<name>.md), json (out/<name>.json: "
         "pages and blocks in reading order with kind, bbox, text, tables as HTML; "
         "docs/hsd-document.schema.json)."),
]  # fmt: skip
Quiet = Annotated[bool, _opt("--quiet", "No progress bar (errors are still printed).")]
JsonOut = Annotated[bool, _opt("--json", "Print the run summary as JSON on stdout, nothing else.")]
Debug = Annotated[bool, _opt("--debug", "Show tracebacks.")]
Version = Annotated[
    bool,
    typer.Option("--version", help="Show the version and exit.", is_eager=True,
                 callback=_show_version),
]  # fmt: skip


@app.callback()
def _root(version: Version = False) -> None:
    """Convert PDFs and images to Markdown with document-parsing VLMs, losslessly sped up."""


@app.command(epilog=EXAMPLES)
def convert(
    inputs: Inputs, out: Out, model: ConvertModel = None, method: Method = "auto",
    tau: Tau = _SPEC.tau, window: Window = _SPEC.window,
    max_new_tokens: MaxNew = _SPEC.max_new_tokens,
    max_depth: MaxDepth = _SPEC.max_depth, max_candidates: MaxCand = _SPEC.max_candidates,
    min_window: MinWindow = _SPEC.min_window, repeat_guard: RepeatGuard = _SPEC.repeat_guard,
    on_loop: OnLoop = "stop",
    stage1_batch: Stage1Batch = _SPEC.stage1_batch, pages: Pages = None, dpi: Dpi = _RUN.dpi, max_pages: MaxPages = None,
    draft_source: DraftSrc = "auto", glob: Glob = None, shard: Shard = "1/1", force: Force = False,
    password: Password = None, device: Device = "auto", dtype: Dtype = "auto",
    baseline: Baseline = False, no_region_starts: NoStarts = False,
    max_nodes: MaxNodes = _SPEC.max_nodes, no_cost_trees: NoCostTrees = False, workers: Workers = None,
    engine: Engine = "local", ray_address: RayAddress = None, ray_verify_actors: RayActors = None,
    ray_batch: RayBatch = _RUN.ray.batch,
    images: Images = False, format: Format = "md", quiet: Quiet = False, json_output: JsonOut = False, debug: Debug = False,
) -> None:  # fmt: skip
    """Convert documents to Markdown: out/<name>.md plus per-page JSON reports in out/<name>/
    (with --format json also out/<name>.json, with --images figure crops in out/<name>/figures/)."""
    with _errors(debug), contextlib.redirect_stdout(sys.stderr if json_output else sys.stdout):
        try:
            spec = SpecConfig(tau=tau, window=window, min_window=min_window, max_depth=max_depth,
                              max_candidates=max_candidates, max_new_tokens=max_new_tokens,
                              repeat_guard=repeat_guard, max_nodes=max_nodes, cost_aware=not no_cost_trees,
                              on_loop=on_loop, region_starts=not no_region_starts, stage1_batch=stage1_batch)
            cfg = RunConfig(
                inputs=tuple(Path(p) for p in inputs), out_dir=out, model=_model_spelling(model or DEFAULT_MODEL), method=method,
                spec=spec, draft_source=draft_source, dpi=dpi, pages=pages, max_pages=max_pages,
                device=_check_device(device), dtype=dtype, baseline=baseline, force=force, password=password, shard=parse_shard(shard), glob=glob,
                workers=default_workers() if workers is None else workers,
                draft_fallback=not model and method in ("auto", "draft"),  # no model asked for
                engine=engine, ray=RayConfig(ray_address, ray_verify_actors, ray_batch),
                images=images, formats=tuple(dict.fromkeys(f.strip() for f in format.split(",") if f.strip())),
            )  # fmt: skip
            _check_pages(pages)
        except ValueError as e:
            raise UsageError(str(e)) from e
        with _summary_on_failure(cfg):
            if cfg.engine == "ray":
                from hsd_cli.pipeline.ray.engine import run as run_on_ray

                summary = run_on_ray(cfg, quiet=quiet, debug=debug, stdin=sys.stdin)
            else:
                from hsd_cli.methods import choose

                summary = runner.run(cfg, choose.converter_for(cfg), quiet=quiet, debug=debug, stdin=sys.stdin)
    if json_output:
        typer.echo(json.dumps(run_summary_to_json(summary), indent=2))
    elif not quiet:
        from rich.console import Console

        from hsd_cli.report.table import print_table, run_table

        print_table(run_table(summary), Console())
    raise typer.Exit(summary.exit_code)


def _model_spelling(model: str) -> str:
    """One spelling per model, so resume sees the same model: a folder by its resolved path."""
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve())
    return model.rstrip("/") or model  # "org/name/" is the hub id "org/name"


def _check_device(device: str) -> str:
    """auto, cpu, mps, cuda or cuda:N; whether the machine has it is checked when the model loads."""
    if not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", device):
        raise ValueError(f"--device must be auto, cpu, mps, cuda or cuda:N, got {device!r}")
    return device


def _check_pages(pages: str | None) -> None:
    """A malformed --pages is one usage error up front, not a failure of every document."""
    from hsd_cli.pages.render import page_ranges

    page_ranges(pages)


@contextlib.contextmanager
def _summary_on_failure(cfg: RunConfig) -> Iterator[None]:
    """A run that fails before its documents (model, output folder) still leaves run-summary.json."""
    try:
        yield
    except HsdError as e:
        from hsd_cli.report import store
        from hsd_cli.report.summary import RunSummary

        failed = RunSummary((), {}, cfg.shard, error=str(e), error_code=e.exit_code)
        with contextlib.suppress(HsdError):  # an unwritable folder is the error being reported
            store.write_json(store.run_summary_path(cfg.out_dir, cfg.shard), run_summary_to_json(failed))
        raise


@app.command()
def models(sizes: Annotated[bool, _opt("--sizes", "Also show model sizes.")] = False) -> None:
    """List the supported target model families."""
    from rich.console import Console
    from rich.table import Table

    with _errors(debug=False):
        try:
            from hsd_cli.targets.runtime.registry import list_models
        except ImportError as e:
            raise HsdError("the model registry is not available in this build") from e
    rows = [asdict(r) if is_dataclass(r) else dict(r) for r in list_models(sizes)]
    table = Table(*(rows[0] if rows else ["model"]))
    for row in rows:
        table.add_row(*(str(v) for v in row.values()))
    Console().print(table)


@app.command()
def bench(
    inputs: Annotated[list[str] | None, typer.Argument(help="PDF/image files or folders.", show_default=False)] = None,
    model: Model = DEFAULT_MODEL,
    methods: Annotated[str, _opt("--methods", "Comma list of ar, page, hsd, auto, lookup (HF prompt lookup).")] = "ar,page,hsd,auto",
    json_path: Annotated[Path | None, typer.Option("--json", help="Write the full report (JSON) here.", envvar="HSD_BENCH_JSON")] = None,
    markdown: Annotated[Path | None, _opt("--markdown", "Replace this run's section of a results file (Markdown).")] = None,
    max_new_tokens: MaxNew = 512, pages: Pages = None, max_pages: MaxPages = None, dpi: Dpi = _RUN.dpi,
    tau: Tau = _SPEC.tau, window: Window = _SPEC.window, min_window: MinWindow = _SPEC.min_window,
    max_depth: MaxDepth = _SPEC.max_depth, max_candidates: MaxCand = _SPEC.max_candidates,
    max_nodes: MaxNodes = _SPEC.max_nodes, no_cost_trees: NoCostTrees = False, no_region_starts: NoStarts = False,
    crop_noise: Annotated[float, _opt("--crop-noise", "With --oracle: Stage-1 crop references are the region's span of the page truth corrupted at this rate (0-1).")] = 0.05,
    oracle: Annotated[bool, _opt("--oracle", "Force the target's greedy choice to the ground truth (corpus files).")] = False,
    noise: Annotated[float | None, _opt("--noise", "With --oracle: drafts = the reference corrupted at this rate (0-1).")] = None,
    noise_sweep: Annotated[str | None, _opt("--noise-sweep", "With --oracle: comma list of noise rates to measure, e.g. 0,0.05,0.1,0.2,0.4.")] = None,
    plot: Annotated[Path | None, _opt("--plot", "With --noise-sweep: write the PNG plot here.")] = None,
    warmup: Annotated[int, _opt("--warmup", "Untimed warm-up runs of every method on the first page.", min=0)] = 1,
    repeat: Annotated[int, _opt("--repeat", "Timed runs per page and method; the fastest counts.", min=1)] = 1,
    full_size: Annotated[str | None, _opt("--full-size", "Full-size random-weight network of this family: with inputs, the target (tokenizer and processor from --model DIR of the same family); alone, the cost curve.")] = None,
    cost_prompt: Annotated[int, _opt("--cost-prompt", "With --full-size: prompt tokens in the KV cache.", min=1)] = 1024,
    cost_reps: Annotated[int, _opt("--cost-reps", "With --full-size: repetitions per tree size (the fastest counts).", min=1)] = 3,
    max_pixels: Annotated[int | None, _opt("--max-pixels", "Downscale the page image the target sees to at most this many pixels (drafts still come from the full --dpi render) [default: the model's own cap].", min=784)] = None,
    device: Device = "auto", dtype: Dtype = "auto",
    threads: Annotated[int | None, _opt("--threads", "Torch CPU threads [default: every core].", min=1)] = None,
) -> None:  # fmt: skip
    """Measure AAL, steps, SR_decode and SR_e2e of each method on the same pages (paper sec. 4.2)."""
    from hsd_cli.bench.config import BenchConfig
    from hsd_cli.bench.main import bench as run_bench

    with _errors(debug=False):
        try:
            cfg = BenchConfig(
                inputs=tuple(Path(p) for p in inputs or ()), model=model, methods=tuple(methods.split(",")),
                max_new_tokens=max_new_tokens, pages=pages, max_pages=max_pages, dpi=dpi, tau=tau, window=window,
                min_window=min_window, max_depth=max_depth, max_candidates=max_candidates, max_nodes=max_nodes,
                cost_aware=not no_cost_trees, region_starts=not no_region_starts, crop_noise=crop_noise,
                oracle=oracle, noise=noise, noise_sweep=tuple(float(x) for x in (noise_sweep or "").split(",") if x),
                warmup=warmup, repeat=repeat, device=device, dtype=dtype, json_path=json_path, markdown_path=markdown,
                plot_path=plot, full_size=full_size, cost_prompt=cost_prompt, cost_reps=cost_reps, threads=threads,
                max_pixels=max_pixels,
            )  # fmt: skip
        except ValueError as e:
            raise UsageError(str(e)) from e
        code = run_bench(cfg)
    raise typer.Exit(code)


@contextlib.contextmanager
def _errors(debug: bool) -> Iterator[None]:
    """HsdError -> one line on stderr and its exit code (plus the traceback with --debug)."""
    try:
        yield
    except HsdError as e:
        if debug:
            traceback.print_exc()
        typer.echo(f"hsd: error: {e}", err=True)
        raise typer.Exit(e.exit_code) from None


def main() -> None:
    """Console-script entry: click's own errors also become one line (exit 2 for usage)."""
    try:
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as e:
        typer.echo(e.ctx.get_help() if e.ctx else str(e), err=True)
        code = UsageError.exit_code
    except ClickException as e:
        typer.echo(f"hsd: error: {e.format_message()}", err=True)
        code = e.exit_code
    except typer.Abort:
        code = 130
    sys.exit(code or 0)
