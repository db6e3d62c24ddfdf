"""The `hsd` command line: options -> RunConfig -> runner -> exit code. No logic lives here."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import typer

from hsd_cli import __version__
from hsd_cli.cli import checks, options
from hsd_cli.cli.bench import bench
from hsd_cli.cli.errors import main as _main
from hsd_cli.cli.errors import one_line_errors, usage_errors
from hsd_cli.cli.models import models
from hsd_cli.cli.options import Command, Debug, Device, Dpi, Dtype, JsonOut, MaxPages, Pages, opt, with_spec_knobs
from hsd_cli.config import (
    DEFAULT_METHOD,
    DEFAULT_MODEL,
    DRAFT_SOURCES,
    ENGINES,
    METHODS,
    RayConfig,
    RunConfig,
    SpecConfig,
    draft_source_choices,
    load,
    names,
    row_named,
)
from hsd_cli.pages.inputs import EXTENSIONS, parse_shard

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
  2        usage error (a bad option, an input path that does not exist)
  3        model not found
  130/143  interrupted by SIGINT/SIGTERM (finished pages are kept)
"""

_RUN = RunConfig(inputs=(), out_dir=Path("."))
app = typer.Typer(
    add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None
)  # rich markup would eat "[default: ...]" notes


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"hsd {__version__}")
        raise typer.Exit()


Inputs = Annotated[
    list[str],
    typer.Argument(
        help="PDF/image files, folders (recursive), or - (paths on stdin); converted in the order given.",
        metavar="INPUTS",
        show_default=False,
    ),
]
Out = Annotated[Path, opt("--out", "Output folder (created if missing).", "-o")]
# None = not asked for, so a missing default model falls back to the draft pipeline.
Model = Annotated[
    str | None,
    opt(
        "--model",
        f"Target model: hub id or local directory [default: {DEFAULT_MODEL}; where it "
        "cannot be loaded and no model was asked for, the draft pipeline's output, with a warning].",
        show_default=False,
    ),
]
Method = Annotated[
    Literal[names(METHODS)],  # type: ignore[valid-type]
    opt("--method", "; ".join(f"{r.name}: {r.help}" for r in METHODS) + "."),
]
Workers = Annotated[
    int | None,
    opt(
        "--workers",
        "Background processes that render and draft the next pages while the model "
        "verifies the current one; 0 = none [default: cores - 1, at most 4, beside a model; "
        "beside a model on a GPU with 8 or more cores to spare, all of them, at most 15, drafting "
        "on the CPU; every core, at most 8, for the draft pipeline alone]; beside a model on a GPU "
        "2 more render the pages read without drafts.",
        min=0,
    ),
]
BatchPages = Annotated[
    int | None,
    opt(
        "--batch-pages",
        "Pages verified together, their rows sharing each forward pass (continuous batching; "
        "the output does not change) [default: 4 on a CPU; on a GPU what half its free memory holds].",
        min=1,
    ),
]
Engine = Annotated[
    Literal[names(ENGINES)],  # type: ignore[valid-type]
    opt("--engine", "; ".join(f"{r.name}: {r.help}" for r in ENGINES) + "."),
]
RayAddress = Annotated[
    str | None,
    opt(
        "--ray-address",
        "With --engine ray: the cluster to join, e.g. head:6379 or auto [default: start a local Ray instance].",
        show_default=False,
    ),
]
RayActors = Annotated[
    int | None,
    opt(
        "--ray-verify-actors",
        "With --engine ray: loaded models verifying pages [default: one per GPU of the cluster; 1 without GPUs].",
        min=1,
        show_default=False,
    ),
]
RayBatch = Annotated[
    int,
    opt(
        "--ray-batch",
        "With --engine ray: pages per prepare task (long documents are split into groups of this many pages).",
        min=1,
    ),
]
DraftSrc = Annotated[
    Literal[draft_source_choices()],  # type: ignore[valid-type]
    opt(
        "--draft-source",
        "Drafts from " + ", ".join(f"{r.help} ({r.name})" for r in DRAFT_SOURCES) + ", or auto: per page, "
        "the first of these that can read it.",
    ),
]
_SUFFIXES = " ".join(e.removeprefix(".") for e in EXTENSIONS)
Glob = Annotated[str | None, opt("--glob", f"File-name pattern in folders, case-insensitive [default: {_SUFFIXES}].")]
Shard = Annotated[str, opt("--shard", "Convert only shard i of N (i/N); stable across machines.")]
Force = Annotated[bool, opt("--force", "Redo pages that already have a finished report.")]
Password = Annotated[str | None, opt("--password", "Password for encrypted PDFs.")]
Baseline = Annotated[bool, opt("--baseline", "Also run plain AR decoding and report speedups.")]
Images = Annotated[
    bool,
    opt(
        "--images",
        "Save figure regions as out/<name>/figures/page-NNNN-K.png and link them from "
        "the Markdown where they stand in reading order (with their caption when the layout found one).",
    ),
]
Format = Annotated[
    str,
    opt(
        "--format",
        "Document outputs, comma-separated: md (out/<name>.md), json (out/<name>.json: "
        "pages and blocks in reading order with kind, bbox, text, tables as HTML; "
        "docs/hsd-document.schema.json).",
    ),
]
Quiet = Annotated[bool, opt("--quiet", "No progress bar (errors are still printed).")]
Version = Annotated[
    bool,
    typer.Option("--version", help="Show the version and exit.", is_eager=True, callback=_show_version),
]


@app.callback()
def _root(version: Version = False) -> None:
    """Convert PDFs and images to Markdown with document-parsing VLMs, losslessly sped up."""


@app.command(epilog=EXAMPLES, cls=Command)
@with_spec_knobs
def convert(
    inputs: Inputs,
    out: Out,
    knobs: dict[str, Any],
    model: Model = None,
    method: Method = DEFAULT_METHOD,
    pages: Pages = None,
    dpi: Dpi = _RUN.dpi,
    max_pages: MaxPages = None,
    draft_source: DraftSrc = _RUN.draft_source,
    glob: Glob = None,
    shard: Shard = "1/1",
    force: Force = False,
    password: Password = None,
    device: Device = "auto",
    dtype: Dtype = "auto",
    graphs: options.Graphs = True,
    baseline: Baseline = False,
    workers: Workers = None,
    batch_pages: BatchPages = None,
    engine: Engine = _RUN.engine,
    ray_address: RayAddress = None,
    ray_verify_actors: RayActors = None,
    ray_batch: RayBatch = _RUN.ray.batch,
    images: Images = False,
    format: Format = "md",
    quiet: Quiet = False,
    json_output: JsonOut = False,
    debug: Debug = False,
) -> None:
    """Convert documents to Markdown: out/<name>.md plus per-page JSON reports in out/<name>/
    (with --format json also out/<name>.json, with --images figure crops in out/<name>/figures/)."""
    options = dict(locals())
    with one_line_errors(debug), contextlib.redirect_stdout(sys.stderr if json_output else sys.stdout):
        with usage_errors():  # checked before any model is imported or looked for
            checks.inputs_exist(inputs)
            cfg = _run_config(**options)
            checks.pages(pages)
            checks.environment()
        with checks.summary_on_failure(cfg):
            summary = _run(cfg, quiet, debug)
    _print_summary(summary, json_output, quiet)
    raise typer.Exit(summary.exit_code)


def _run_config(
    inputs, out, knobs, model, method, workers, shard, ray_address, ray_verify_actors, ray_batch, format, device, **rest
) -> RunConfig:  # noqa: ANN001 - the command's own parameters
    """The run's configuration from the command's options (ValueError on a bad combination)."""
    return RunConfig(
        inputs=tuple(Path(p) for p in inputs),
        out_dir=out,
        model=checks.model_spelling(model or DEFAULT_MODEL),
        method=method,
        spec=SpecConfig(**knobs),
        device=checks.device(device),
        shard=parse_shard(shard),
        workers=workers,  # None: chosen once the converter is known (pipeline/local.prepare_workers)
        # No model asked for, and a method that does not insist on one: the default, or no model at all.
        draft_fallback=not model and (method == DEFAULT_METHOD or not row_named(METHODS, method).model),
        ray=RayConfig(ray_address, ray_verify_actors, ray_batch),
        formats=tuple(dict.fromkeys(f.strip() for f in format.split(",") if f.strip())),
        **{k: rest[k] for k in _PLAIN},
    )


# Options that go into RunConfig as they are.
_PLAIN = (
    "draft_source",
    "dpi",
    "pages",
    "max_pages",
    "dtype",
    "graphs",
    "baseline",
    "force",
    "password",
    "glob",
    "engine",
    "images",
    "batch_pages",
)


def _print_summary(summary, json_output: bool, quiet: bool) -> None:  # noqa: ANN001 - a RunSummary
    """The run summary on stdout: JSON with --json, else the table (nothing with --quiet)."""
    if json_output:
        from hsd_cli.report.json import run_summary_to_json

        typer.echo(json.dumps(run_summary_to_json(summary), indent=2))
    elif not quiet:
        from rich.console import Console

        from hsd_cli.report.table import print_table, run_table

        print_table(run_table(summary), Console())


def _run(cfg: RunConfig, quiet: bool, debug: bool):  # noqa: ANN202 - RunSummary
    """The engine's run (config.ENGINES), imported now: the local one loads the model only when
    a page is left to convert."""
    run = load(row_named(ENGINES, cfg.engine))
    return run(cfg, quiet=quiet, debug=debug, stdin=sys.stdin)


app.command()(models)
app.command(cls=Command)(bench)


def main() -> None:
    """Console-script entry: click's own errors also become one line (exit 2 for usage)."""
    _main(app)
