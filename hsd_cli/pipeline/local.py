"""The conversion loop: documents -> pages -> prepare -> verify -> write, in order.

Per page: prepare (render + drafts, see prepare.py; with `workers` > 0 done ahead in background
processes, workers.py, while the model verifies earlier pages, and beside a model a page starts
once rendered, its drafts joining it when made: drafting.py), verify (the converter), then write
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
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO

from hsd_cli.config import RunConfig
from hsd_cli.cores import default_workers
from hsd_cli.drafts.torch_engines import follow_target
from hsd_cli.errors import OutputError, UsageError
from hsd_cli.methods.base import PageConverter
from hsd_cli.pages import inputs
from hsd_cli.pages.inputs import InputDoc
from hsd_cli.pipeline.lazy import LazyConverter
from hsd_cli.pipeline.plan import DocPlan, plan_document
from hsd_cli.pipeline.prepare import PrepareConfig
from hsd_cli.pipeline.verify import cause, verify_stream
from hsd_cli.pipeline.workers import PrepareQueue
from hsd_cli.pipeline.write import DocumentWriter, write_failed_document
from hsd_cli.report import store
from hsd_cli.report.json import run_summary_to_json
from hsd_cli.report.progress import RunProgress
from hsd_cli.report.summary import DocSummary, RunSummary, skipped_document


def convert(cfg: RunConfig, *, quiet: bool = False, debug: bool = False, stdin: TextIO | None = None) -> RunSummary:
    """`--engine local`: the run, its converter chosen once the inputs are found (pipeline/lazy.py)."""
    return run(cfg, LazyConverter(cfg), quiet=quiet, debug=debug, stdin=stdin)


def run(
    cfg: RunConfig,
    converter: PageConverter | LazyConverter,
    *,
    quiet: bool = False,
    debug: bool = False,
    stdin: TextIO | None = None,
    err: TextIO | None = None,
) -> RunSummary:
    """Convert every document of this shard; OutputError when out_dir cannot be written.

    In order: inputs found, the converter chosen (a LazyConverter: only now), the resume key,
    every document planned; a target converter loads its model on its first page.
    """
    err = err if err is not None else sys.stderr
    store.ensure_writable(cfg.out_dir)
    found = inputs.discover(cfg.inputs, cfg.glob, stdin, exclude=cfg.out_dir)
    docs = inputs.shard(found, *cfg.shard)
    interrupt = Interrupt()
    summaries: list[DocSummary] = []
    options = run_options(cfg, converter.options_key())
    with (
        run_summary(cfg, options, summaries, interrupt) as finish,
        signals(interrupt),
        RunProgress(len(docs), err, quiet) as progress,
    ):
        plans = [plan_document(doc, cfg, options) for doc in docs]
        if isinstance(converter, LazyConverter):
            converter = converter.get()  # chosen by options_key() above; loads nothing
        ctx = _Context(cfg, converter, options, interrupt, progress, debug)
        beside = uses_model(converter)
        workers, overlap = prepare_workers(cfg, converter), getattr(converter, "starts_before_drafts", False)
        # Beside a GPU the loop would wait for each page's rendering (--workers 0: no processes at all).
        ahead = beside and workers > 0 and on_accelerator(cfg.device)
        queue = PrepareQueue(prepare_config(cfg, converter, workers), workers, None, beside, overlap, ahead)
        prepared = queue.run((p.doc.path, page) for p in plans for page in p.todo)
        verified = _VerifiedPages(verify_stream(converter, _pages(plans, prepared, interrupt), _InPage(interrupt)))
        try:
            for plan in plans:
                if interrupt.signum and not verified.more():
                    break  # interrupted: the pages in flight were written
                summaries.append(_convert_document(plan, verified, ctx))
                progress.doc_done(plan.doc.name, summaries[-1])
        finally:
            queue.close()
        if interrupt.signum:
            name = signal.Signals(interrupt.signum).name
            progress.error(f"interrupted by {name}; finished pages are saved, rerun to resume")
    return finish()


@contextmanager
def run_summary(
    cfg: RunConfig, options: dict[str, object], summaries: list[DocSummary], interrupt: Interrupt
) -> Iterator:
    """Yield the function that writes run-summary.json; an exception on the way writes it too."""
    path = store.run_summary_path(cfg.out_dir, cfg.shard)

    def finish(error: str = "") -> RunSummary:
        summary = RunSummary(tuple(summaries), options, cfg.shard, interrupt.signum, error, int(bool(error)))
        store.write_json(path, run_summary_to_json(summary))
        return summary

    try:
        yield finish
    except BaseException as e:
        with contextlib.suppress(Exception):  # the exception in flight is the one to report
            finish(cause(e))
        raise


def run_options(cfg: RunConfig, converter_key: dict[str, object]) -> dict[str, object]:
    """The page reports' resume key: the converter's, plus what changes pages beyond it."""
    # dpi changes what OCR reads even where the converter's own key leaves it out (draft);
    # --images changes the Markdown (links). Formats do not: blocks are in every page report.
    return {**converter_key, "dpi": cfg.dpi, **({"images": True} if cfg.images else {})}


def prepare_workers(cfg: RunConfig, converter: PageConverter) -> int:
    """--workers, or the default for this converter: a model keeps a core (and beside a GPU, its
    input threads); drafts alone take them all."""
    if cfg.workers is not None:
        return cfg.workers
    model = uses_model(converter)
    return default_workers(model, accelerator=model and on_accelerator(cfg.device))


def on_accelerator(device: str) -> bool:
    """Whether a model on --device runs on a GPU (auto: where this host has CUDA)."""
    from hsd_cli.targets.runtime.registry import resolve_device

    try:
        return resolve_device(device) != "cpu"
    except UsageError:  # a device this host lacks: the model's loading reports it
        return False


def uses_model(converter: PageConverter) -> bool:
    """Whether the converter runs a model (beside the drafting workers), not the drafts alone."""
    from hsd_cli.methods.draft import DraftConverter

    return not isinstance(converter, DraftConverter)


def prepare_config(cfg: RunConfig, converter: PageConverter, workers: int = 0) -> PrepareConfig:
    """The prepare stage's settings: drafts only for converters that use them; `workers` draft
    them (many beside a GPU draft on the CPU: torch_engines.follow_target)."""
    drafts = cfg.draft_source if getattr(converter, "uses_drafts", False) else None
    delay = float(os.environ.get("HSD_DRAFT_DELAY") or 0.0)  # a testing knob (docs/usage.md)
    device = follow_target(cfg.device, workers)
    return PrepareConfig(cfg.dpi, cfg.password, drafts, draft_delay=delay, draft_device=device)


@dataclass(slots=True)
class Interrupt:
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
    interrupt: Interrupt
    progress: RunProgress
    debug: bool


def _pages(plans: list[DocPlan], prepared: Iterator, interrupt: Interrupt) -> Iterator:
    """Every planned page with its prepare stage, in order; none starts after a signal."""
    for plan in plans:
        for page in plan.todo:
            if interrupt.signum:
                return
            yield plan.doc.name, plan.doc.path, page, next(prepared)


class _VerifiedPages:
    """The verified pages, in order, with a look at whether another one comes."""

    def __init__(self, stream: Iterator) -> None:
        self.stream, self.next = stream, None

    def more(self) -> bool:
        if self.next is None:
            self.next = next(self.stream, None)
        return self.next is not None

    def take(self):
        """The next verified page, or None once the stream ended (interrupted)."""
        item, self.next = (self.next if self.more() else None), None
        return item


def _convert_document(plan: DocPlan, verified: _VerifiedPages, ctx: _Context) -> DocSummary:
    """One document under its lock; an output error fails it alone (the batch goes on)."""
    doc = plan.doc
    if plan.error:
        return _failed_document(doc, plan.error, ctx)
    if plan.skipped:
        return skipped_document(str(doc.path), doc.key, plan.skipped)
    todo = iter(plan.todo)
    writer = DocumentWriter(plan, ctx.cfg)

    def on_wait() -> None:
        ctx.progress.note(f"{doc.name}: waiting for another run that holds it")

    try:
        with writer.locked(on_wait):
            return _write_document(writer, todo, verified, ctx)
    except (OutputError, OSError) as e:
        for _ in todo:  # keep the verified pages in step with the plans
            verified.take()
        return _failed_document(doc, cause(e), ctx)


def _write_document(writer: DocumentWriter, todo: Iterator[int], verified: _VerifiedPages, ctx: _Context) -> DocSummary:
    """All selected pages, skipping finished ones; writes the Markdown and summary.json.

    Pages are verified ahead of this loop (several share each forward pass), so a page another
    run finished meanwhile is dropped here, when its turn to be written comes."""
    plan = writer.plan
    ctx.progress.start_doc(plan.doc.name, len(plan.pages), len(plan.done))
    for page in todo:
        try:
            item = verified.take()
        except _Abort:
            break
        if item is None:
            break  # interrupted
        if writer.take_fresh(page):
            continue
        for line in item.lines:
            ctx.progress.show(line, ctx.debug)
        writer.write(item.result, item.image)
        ctx.progress.page_done(item.result)
    return writer.finish()


def _failed_document(doc: InputDoc, error: str, ctx: _Context) -> DocSummary:
    """One error line; a summary.json too when the file exists (a missing one gets no folder)."""
    ctx.progress.error(f"{doc.name}: {error}")
    return write_failed_document(doc, error, ctx.cfg.out_dir, ctx.options)


@dataclass(slots=True)
class _InPage:
    """Marks the converter call, so that a second signal may abort it."""

    interrupt: Interrupt

    def __enter__(self) -> None:
        self.interrupt.in_page = True

    def __exit__(self, *exc: object) -> None:
        self.interrupt.in_page = False


@contextmanager
def signals(interrupt: Interrupt) -> Iterator[None]:
    """Route SIGINT/SIGTERM into `interrupt` for the duration of the run (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handle(signum: int, _frame: object) -> None:
        again = bool(interrupt.signum)
        interrupt.signum = interrupt.signum or signum
        if again and interrupt.in_page:
            raise _Abort

    previous = {s: signal.signal(s, handle) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
