"""The conversion loop: documents -> pages -> prepare -> verify -> write, in order.

Per page: prepare (render + drafts, see stages.py; with `workers` > 0 done ahead in background
processes while the model verifies earlier pages), verify (the converter), then write
`page-NNNN.json` and rewrite the document's Markdown. Both writes are atomic, so a run killed
at any point loses at most the page in flight, and a rerun skips every finished page (see
report/store.py). A page that raises becomes a failed PageResult and the run goes on; a
document that cannot be opened is one error line.

Signals: the first SIGINT/SIGTERM lets the page in flight finish and be written, then the run
stops (exit 130/143); a second one abandons the page in flight at once. Workers ignore SIGINT
and die with the parent.
"""

from __future__ import annotations

import itertools
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from hsd_cli import inputs
from hsd_cli.config import RunConfig
from hsd_cli.converter import PageConverter
from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import HsdError, InputError, ModelNotFoundError
from hsd_cli.inputs import InputDoc
from hsd_cli.report import store
from hsd_cli.report.json import doc_summary_to_json, page_to_json, run_summary_to_json
from hsd_cli.report.markdown import render_document
from hsd_cli.report.summary import DocSummary, RunSummary, failed_document, summarize_document
from hsd_cli.stages import PrepareConfig, PreparedPage, PrepareQueue


def load_converter(cfg: RunConfig) -> PageConverter:
    """The converter for cfg.method; a model that cannot be loaded is a ModelNotFoundError, except
    that with cfg.draft_fallback (no model asked for) it means the draft pipeline and one warning."""
    from hsd_cli.draft_converter import DraftConverter

    if cfg.method == "draft":
        return DraftConverter(cfg.draft_source)
    from hsd_cli.spec_converter import SpecConverter

    try:
        converter = SpecConverter.load(cfg)
    except ModelNotFoundError as e:
        if not cfg.draft_fallback:
            raise
        print(fallback_warning(cfg.model, e), file=sys.stderr)
        return DraftConverter(cfg.draft_source)
    if note := precision_note(cfg):
        print(note, file=sys.stderr)
    return converter


def fallback_warning(model: str, error: ModelNotFoundError) -> str:
    """The one line saying that the pages are the unverified drafts, why, and how to get the model."""
    from hsd_cli.targets.registry import WAYS_OUT

    cause = str(error).removesuffix(f": {WAYS_OUT}")
    return (f"hsd: warning: {cause}; writing the draft pipeline's unverified output instead "
            f"(page reports say method: draft); to convert with the model, pass --model DIR "
            f"or download it first (hf download {model})")  # fmt: skip


def precision_note(cfg: RunConfig) -> str | None:
    """A line for tau = 1 in half precision: equality with AR is guaranteed in float32 only."""
    import torch

    from hsd_cli.targets.registry import resolve_device, resolve_dtype

    dtype = resolve_dtype(cfg.dtype, resolve_device(cfg.device))
    if dtype not in (torch.bfloat16, torch.float16) or cfg.method == "ar" or cfg.spec.tau < 1.0:
        return None
    # Half-precision logits tie (design.md, Numerics), and batch or tree shape can flip a tie.
    name = str(dtype).removeprefix("torch.")
    return (f"hsd: note: the model runs in {name}: output equal to greedy AR decoding is guaranteed "
            f"in float32 (--dtype fp32) and measured otherwise (--baseline reports identical_to_ar)")


def run(
    cfg: RunConfig,
    converter: PageConverter,
    *,
    quiet: bool = False,
    debug: bool = False,
    stdin: TextIO | None = None,
    err: TextIO | None = None,
) -> RunSummary:
    """Convert every document of this shard; OutputError when out_dir cannot be written."""
    err = err if err is not None else sys.stderr
    store.ensure_writable(cfg.out_dir)
    found = inputs.discover(cfg.inputs, cfg.glob, stdin, exclude=cfg.out_dir)
    docs = inputs.shard(found, *cfg.shard)
    stop = _Stop()
    summaries: list[DocSummary] = []
    with _signals(stop), _Progress(len(docs), err, not quiet and err.isatty()) as progress:
        ctx = _Context(cfg, converter, converter.options_key(), stop, progress, debug)
        # Plans are made lazily, once: the prepare queue reads them ahead of the writer.
        ahead, plans = itertools.tee(_plan(doc, ctx) for doc in docs)
        prep = prepare_config(cfg, converter)
        # Rendering alone is cheap; worker processes pay off where drafts are made.
        queue = PrepareQueue(prep, cfg.workers if prep.drafts is not None else 0)
        prepared = queue.run((p.doc.path, page) for p in ahead for page in p.todo)
        try:
            for plan in plans:
                if stop.signum:
                    break
                summaries.append(_convert_document(plan, prepared, ctx))
                progress.doc_done()
        finally:
            queue.close()
        if stop.signum:
            name = signal.Signals(stop.signum).name
            progress.error(f"interrupted by {name}; finished pages are saved, rerun to resume")
    summary = RunSummary(tuple(summaries), ctx.options, cfg.shard, stop.signum)
    store.write_json(_run_summary_path(cfg), run_summary_to_json(summary))
    return summary


def prepare_config(cfg: RunConfig, converter: PageConverter) -> PrepareConfig:
    """The prepare stage's settings: drafts only for converters that use them."""
    drafts = cfg.draft_source if getattr(converter, "uses_drafts", False) else None
    return PrepareConfig(cfg.dpi, cfg.password, drafts)


@dataclass(slots=True)
class _Stop:
    """Set by the signal handler; `in_page` says whether a second signal may abort a page."""

    signum: int = 0
    in_page: bool = False


class _Abort(BaseException):
    """A second signal arrived while a page was converting: leave it unfinished."""


@dataclass(frozen=True, slots=True)
class _Context:
    cfg: RunConfig
    converter: PageConverter
    options: dict[str, object]
    stop: _Stop
    progress: _Progress
    debug: bool


@dataclass(frozen=True, slots=True)
class _Plan:
    """One document's work: the pages to convert and those finished in an earlier run."""

    doc: InputDoc
    pages: tuple[int, ...] = ()
    done: dict[int, PageResult] = field(default_factory=dict)
    error: str = ""

    @property
    def todo(self) -> list[int]:
        return [p for p in self.pages if p not in self.done] if not self.error else []


def _plan(doc: InputDoc, ctx: _Context) -> _Plan:
    try:
        pages = _select_pages(doc, ctx.cfg)
    except InputError as e:
        return _Plan(doc, error=str(e))
    report_dir = doc.report_dir(ctx.cfg.out_dir)
    done = {} if ctx.cfg.force else store.finished_pages(report_dir, pages, ctx.options)
    return _Plan(doc, tuple(pages), done)


def _convert_document(plan: _Plan, prepared: Iterator, ctx: _Context) -> DocSummary:
    """All selected pages of one document, skipping finished ones; writes its summary.json."""
    doc, out = plan.doc, ctx.cfg.out_dir
    if plan.error:
        return _failed_document(doc, plan.error, ctx)
    report_dir = doc.report_dir(out)
    store.remove_stale_temps(report_dir)
    results = dict(plan.done)
    ctx.progress.start_doc(str(doc.path), len(plan.pages), len(plan.done))
    for page in plan.todo:
        item = next(prepared)  # this page's prepare stage, possibly done ahead by a worker
        result = None if ctx.stop.signum else _convert_page(doc.path, page, item, ctx)
        if result is None:
            break  # interrupted
        results[page] = result
        report = page_to_json(result, ctx.options)
        store.write_json(store.page_report_path(report_dir, page), report)
        store.write_text(doc.markdown_path(out), render_document(results.values()))
        ctx.progress.page_done(result)
    if results and len(results) == len(plan.done):  # all resumed: make sure the Markdown exists
        store.write_text(doc.markdown_path(out), render_document(results.values()))
    summary = summarize_document(str(doc.path), doc.key, len(plan.pages), results.values(), len(plan.done))
    store.write_json(report_dir / "summary.json", doc_summary_to_json(summary, ctx.options))
    return summary


def _failed_document(doc: InputDoc, error: str, ctx: _Context) -> DocSummary:
    """One error line; a summary.json too when the file exists (a missing one gets no folder)."""
    ctx.progress.error(f"{doc.path}: {error}")
    summary = failed_document(str(doc.path), doc.key, error)
    if not doc.error:
        path = doc.report_dir(ctx.cfg.out_dir) / "summary.json"
        store.write_json(path, doc_summary_to_json(summary, ctx.options))
    return summary


def _convert_page(path: Path, page: int, item: PreparedPage | BaseException, ctx: _Context) -> PageResult | None:
    """Verify one prepared page; a failure is a failed PageResult, None means aborted."""
    t_render = item.t_render if isinstance(item, PreparedPage) else 0.0
    try:
        if isinstance(item, BaseException):
            raise item
        if item.draft_error:
            ctx.progress.warn(f"{path}: page {page}: draft pipeline failed ({item.draft_error}); "
                              "converting without drafts")
        ctx.stop.in_page = True
        try:
            result = ctx.converter.convert(item)
        finally:
            ctx.stop.in_page = False
    except _Abort:
        return None
    except Exception as e:  # per-page isolation: record, report, go on
        cause = _cause(e)
        ctx.progress.error(_page_line(path, page, cause), exc=e if ctx.debug else None)
        return PageResult(
            str(path), page, PageStatus.FAILED, method=ctx.converter.method, error=cause,
            t_render=t_render,
        )  # fmt: skip
    if result.status == PageStatus.FAILED:  # the converter's own failure value
        ctx.progress.error(_page_line(path, page, result.error or "failed"))
    return replace(result, source=str(path), page=page, t_render=t_render)


def _select_pages(doc: InputDoc, cfg: RunConfig) -> list[int]:
    """1-based page numbers to convert: --pages, then the first --max-pages of those."""
    from hsd_cli.render import count_pages, parse_page_spec

    if doc.error:
        raise InputError(doc.error)
    n = count_pages(doc.path, cfg.password)
    if n < 1:
        raise InputError("document has no pages")
    try:
        selected = [i + 1 for i in parse_page_spec(cfg.pages, n)]
    except ValueError as e:  # a range outside this document is this document's problem
        raise InputError(str(e)) from None
    return selected[: cfg.max_pages] if cfg.max_pages else selected


def _cause(e: BaseException) -> str:
    """One line naming the cause: our own messages as they are, others with their type."""
    text = str(e) if isinstance(e, HsdError) else f"{type(e).__name__}: {e}"
    return " ".join(text.split()) or type(e).__name__


def _page_line(path: Path, page: int, cause: str) -> str:
    # Render errors already start with "page N ..."; don't say it twice.
    where = "" if cause.startswith(f"page {page} ") else f"page {page}: "
    return f"{path}: {where}{cause}"


def _run_summary_path(cfg: RunConfig) -> Path:
    # Shards may share one out dir; each keeps its own run summary.
    i, n = cfg.shard
    name = "run-summary.json" if n == 1 else f"run-summary-{i}-of-{n}.json"
    return cfg.out_dir / name


@contextmanager
def _signals(stop: _Stop) -> Iterator[None]:
    """Route SIGINT/SIGTERM into `stop` for the duration of the run (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, _frame: object) -> None:
        again = bool(stop.signum)
        stop.signum = stop.signum or signum
        if again and stop.in_page:
            raise _Abort

    previous = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


class _Progress:
    """Progress bars on stderr (documents, pages, tokens/s, AAL); error lines print above them."""

    def __init__(self, num_docs: int, err: TextIO, enabled: bool) -> None:
        self.err = err
        self.tokens, self.seconds = 0, 0.0
        self.bar: Progress | None = None
        if enabled:
            self.bar = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
                console=Console(file=err),
            )  # fmt: skip
            self.docs = self.bar.add_task("documents", total=num_docs, rate="")
            self.pages = self.bar.add_task("pages", total=0, rate="")

    def __enter__(self) -> _Progress:
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar:
            self.bar.stop()

    def error(self, line: str, exc: BaseException | None = None) -> None:
        text = f"hsd: error: {line}"
        if exc is not None:
            text += "\n" + "".join(traceback.format_exception(exc)).rstrip()
        if self.bar:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.err, flush=True)

    def warn(self, line: str) -> None:
        text = f"hsd: warning: {line}"
        if self.bar:
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            print(text, file=self.err, flush=True)

    def start_doc(self, name: str, total: int, done: int) -> None:
        if self.bar:
            short = name if len(name) <= 40 else "..." + name[-37:]
            self.bar.reset(self.pages, total=total, completed=done, description=short, rate="")

    def page_done(self, result: PageResult) -> None:
        self.tokens += result.tokens
        self.seconds += result.t_total
        if self.bar:
            speed = self.tokens / self.seconds if self.seconds > 0 else 0.0
            rate = f"{speed:.1f} tok/s  AAL {result.aal:.2f}"
            self.bar.update(self.pages, advance=1, rate=rate)

    def doc_done(self) -> None:
        if self.bar:
            self.bar.advance(self.docs)
