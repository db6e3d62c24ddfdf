"""The conversion loop: documents -> pages -> prepare -> verify -> write, in order.

Per page: prepare (render + drafts, see stages.py; with `workers` > 0 done ahead in background
processes while the model verifies earlier pages), verify (the converter), then write
`page-NNNN.json` and rewrite the document's Markdown. Both writes are atomic, so a run killed
at any point loses at most the page in flight, and a rerun skips every finished page (see
report/store.py). A page that raises becomes a failed PageResult and the run goes on; a
document that cannot be opened is one error line.

Batches (issue 13): a document is worked on under its lock (store.document_lock), so runs on
one folder take turns; its page reports are keyed by the options and the source's identity;
its Markdown holds every finished page, also those outside this run's --pages; an output error
fails that document alone; run-summary.json is written however the run ends.

Signals: the first SIGINT/SIGTERM lets the page in flight finish and be written, then the run
stops (exit 130/143); a second one abandons the page in flight at once. Workers ignore SIGINT
and die with the parent.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import PurePosixPath
from typing import TextIO

from hsd_cli import inputs
from hsd_cli.config import RunConfig
from hsd_cli.converter import PageConverter
from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.errors import HsdError, InputError, ModelNotFoundError, OutputError
from hsd_cli.inputs import InputDoc
from hsd_cli.memory import is_oom, oom_line, release
from hsd_cli.report import store
from hsd_cli.report.json import doc_summary_to_json, page_to_json, run_summary_to_json
from hsd_cli.report.document import document_to_json
from hsd_cli.report.figures import save_figures
from hsd_cli.report.markdown import render_document
from hsd_cli.progress import RunProgress
from hsd_cli.report.summary import (
    DocSummary,
    RunSummary,
    failed_document,
    skipped_document,
    summarize_document,
)
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
    # dpi changes what OCR reads even where the converter's own key leaves it out (draft);
    # --images changes the Markdown (links). Formats do not: blocks are in every page report.
    options = {**converter.options_key(), "dpi": cfg.dpi, **({"images": True} if cfg.images else {})}
    with _run_summary(cfg, options, summaries, stop) as finish, _signals(stop), \
            RunProgress(len(docs), err, quiet) as progress:  # fmt: skip
        ctx = _Context(cfg, converter, options, stop, progress, debug)
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
                progress.doc_done(plan.doc.name, summaries[-1])
        finally:
            queue.close()
        if stop.signum:
            name = signal.Signals(stop.signum).name
            progress.error(f"interrupted by {name}; finished pages are saved, rerun to resume")
    return finish()


@contextmanager
def _run_summary(cfg: RunConfig, options: dict[str, object], summaries: list[DocSummary],
                 stop: _Stop) -> Iterator:  # fmt: skip
    """Yield the function that writes run-summary.json; an exception on the way writes it too."""
    path = store.run_summary_path(cfg.out_dir, cfg.shard)

    def finish(error: str = "") -> RunSummary:
        summary = RunSummary(tuple(summaries), options, cfg.shard, stop.signum, error, int(bool(error)))
        store.write_json(path, run_summary_to_json(summary))
        return summary

    try:
        yield finish
    except BaseException as e:
        with contextlib.suppress(Exception):  # the exception in flight is the one to report
            finish(_cause(e))
        raise


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
    progress: RunProgress
    debug: bool


@dataclass(frozen=True, slots=True)
class _Plan:
    """One document's work: the pages to convert and those finished in an earlier run."""

    doc: InputDoc
    pages: tuple[int, ...] = ()
    done: dict[int, PageResult] = field(default_factory=dict)
    error: str = ""
    skipped: str = ""  # why there is nothing to do (no page of the document in --pages)
    options: dict[str, object] = field(default_factory=dict)  # the run's, plus the source identity
    kept: dict[int, PageResult] = field(default_factory=dict)  # finished pages outside --pages

    @property
    def todo(self) -> list[int]:
        return [p for p in self.pages if p not in self.done] if not self.error else []


def _plan(doc: InputDoc, ctx: _Context) -> _Plan:
    try:
        n, pages = _select_pages(doc, ctx.cfg)
        options = {**ctx.options, "source": store.source_identity(doc.path)}
    except InputError as e:
        return _Plan(doc, error=str(e))
    if not pages:
        return _Plan(doc, skipped=f"no page in --pages {ctx.cfg.pages}; it has {n}")
    report_dir = doc.report_dir(ctx.cfg.out_dir)
    finished = store.finished_pages(report_dir, list(range(1, n + 1)), options)
    done = {} if ctx.cfg.force else {p: finished[p] for p in pages if p in finished}
    kept = {p: r for p, r in finished.items() if p not in pages}
    return _Plan(doc, tuple(pages), done, options=options, kept=kept)


def _convert_document(plan: _Plan, prepared: Iterator, ctx: _Context) -> DocSummary:
    """One document under its lock; an output error fails it alone (the batch goes on)."""
    doc = plan.doc
    if plan.error:
        return _failed_document(doc, plan.error, ctx)
    if plan.skipped:
        return skipped_document(str(doc.path), doc.key, plan.skipped)
    todo = iter(plan.todo)
    waited = [False]

    def on_wait() -> None:
        waited[0] = True
        ctx.progress.note(f"{doc.name}: waiting for another run that holds it")

    try:
        with store.document_lock(doc.report_dir(ctx.cfg.out_dir), on_wait):
            return _write_document(plan, todo, prepared, ctx, waited[0])
    except (OutputError, OSError) as e:
        for _ in todo:  # keep the prepare queue in step with the plans
            next(prepared)
        return _failed_document(doc, _cause(e), ctx)


def _write_document(plan: _Plan, todo: Iterator[int], prepared: Iterator, ctx: _Context,
                    waited: bool) -> DocSummary:  # fmt: skip
    """All selected pages, skipping finished ones; writes the Markdown and summary.json."""
    doc, out, options = plan.doc, ctx.cfg.out_dir, plan.options
    report_dir = doc.report_dir(out)
    # ours alone to remove: we hold the lock
    store.remove_stale_temps(report_dir, doc.markdown_path(out), doc.json_path(out))
    # Pages another run finished while this one waited for the lock are taken as they are.
    fresh = store.finished_pages(report_dir, plan.todo, options) if waited and not ctx.cfg.force else {}
    results, converted = dict(plan.done), 0
    ctx.progress.start_doc(doc.name, len(plan.pages), len(plan.done))
    for page in todo:
        item = next(prepared)  # this page's prepare stage, possibly done ahead by a worker
        if page in fresh:
            results[page] = fresh[page]
            continue
        result = None if ctx.stop.signum else _convert_page(doc, page, item, ctx)
        if result is None:
            break  # interrupted
        if ctx.cfg.images:  # crops first: a page report means its figures are there
            image = item.page.image if isinstance(item, PreparedPage) else None
            result = save_figures(result, image, report_dir, PurePosixPath(doc.key).name)
        results[page], converted = result, converted + 1
        store.write_json(store.page_report_path(report_dir, page), page_to_json(result, options))
        _write_outputs(doc, {**plan.kept, **results}, ctx.cfg)
        ctx.progress.page_done(result)
    if results and not converted:  # all resumed: make sure the Markdown exists
        _write_outputs(doc, {**plan.kept, **results}, ctx.cfg)
    resumed = len(results) - converted
    summary = summarize_document(str(doc.path), doc.key, len(plan.pages), results.values(), resumed)
    store.write_json(report_dir / "summary.json", doc_summary_to_json(summary, options))
    return summary


def _write_outputs(doc: InputDoc, results: dict[int, PageResult], cfg: RunConfig) -> None:
    """The document's Markdown and/or JSON (--format), from every finished page, atomically."""
    out, markdown = cfg.out_dir, doc.markdown_path(cfg.out_dir)
    if "md" in cfg.formats:
        store.write_text(markdown, render_document(results.values()))
    if "json" in cfg.formats:
        name = markdown.name if "md" in cfg.formats else None
        store.write_json(doc.json_path(out), document_to_json(str(doc.path), name, results.values()))


def _failed_document(doc: InputDoc, error: str, ctx: _Context) -> DocSummary:
    """One error line; a summary.json too when the file exists (a missing one gets no folder)."""
    ctx.progress.error(f"{doc.name}: {error}")
    summary = failed_document(str(doc.path), doc.key, error)
    if not doc.error:
        path = doc.report_dir(ctx.cfg.out_dir) / "summary.json"
        with contextlib.suppress(OutputError):  # the folder itself may be what failed
            store.write_json(path, doc_summary_to_json(summary, ctx.options))
    return summary


def _convert_page(doc: InputDoc, page: int, item: PreparedPage | BaseException,
                  ctx: _Context) -> PageResult | None:  # fmt: skip
    """Verify one prepared page; a failure is a failed PageResult, None means aborted."""
    path, name = doc.path, doc.name
    t_render = item.t_render if isinstance(item, PreparedPage) else 0.0
    try:
        if isinstance(item, BaseException):
            raise item
        if item.draft_error:
            ctx.progress.warn(f"{name}: page {page}: draft pipeline failed ({item.draft_error}); "
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
        if is_oom(e):
            release()
            cause = oom_line(e)
        ctx.progress.error(_page_line(name, page, cause), exc=e if ctx.debug else None)
        return PageResult(
            str(path), page, PageStatus.FAILED, method=ctx.converter.method, error=cause,
            t_render=t_render,
        )  # fmt: skip
    if result.status == PageStatus.FAILED:  # the converter's own failure value
        ctx.progress.error(_page_line(name, page, result.error or "failed"))
    if result.fault:
        ctx.progress.warn(_page_line(name, page, result.fault))
    return replace(result, source=str(path), page=page, t_render=t_render)


def _select_pages(doc: InputDoc, cfg: RunConfig) -> tuple[int, list[int]]:
    """The page count and the 1-based pages to convert: those of --pages the document has
    (--pages 1-2 suits a one-page document too), then the first --max-pages of those."""
    from hsd_cli.render import count_pages, parse_page_spec

    if doc.error:
        raise InputError(doc.error)
    n = count_pages(doc.path, cfg.password)
    if n < 1:
        raise InputError("document has no pages")
    selected = [i + 1 for i in parse_page_spec(cfg.pages, n, clip=True)]  # syntax: checked by the CLI
    return n, selected[: cfg.max_pages] if cfg.max_pages else selected


def _cause(e: BaseException) -> str:
    """One line naming the cause: our own messages as they are, others with their type."""
    text = str(e) if isinstance(e, HsdError) or not str(e) else f"{type(e).__name__}: {e}"
    return " ".join(text.split()) or type(e).__name__


def _page_line(name: str, page: int, cause: str) -> str:
    # Render errors already start with "page N ..." or "page N: ..."; don't say it twice.
    where = "" if re.match(rf"page {page}\b", cause) else f"page {page}: "
    return f"{name}: {where}{cause}"


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
