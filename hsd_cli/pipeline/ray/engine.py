"""The driver of `--engine ray`: the local run's plan, stages and writes, on a Ray cluster.

The driver discovers and plans the documents (the resume index: finished pages are skipped),
hands the pages to a Ray Data pipeline (prepare on CPU tasks, verify on actors; stages.py), and
writes each page's report as its result streams back; a document's Markdown and summary.json
are written once its last page is back. Outputs are those of the local engine: the same files,
the same Markdown bytes, the same page statuses.

Faults: a verify worker that dies is restarted and its pages in flight retried
(`RayConfig.retries` times); pages that still do not come back are recorded as failed pages (a
rerun retries them); written pages are never lost, since each is written when it arrives. If the
pipeline itself fails, every document is finished with the pages it has (a rerun resumes), the
run gets one error line and exit status 1.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import signal
import sys
import warnings
from contextlib import ExitStack
from dataclasses import replace
from types import ModuleType
from typing import TYPE_CHECKING, TextIO

from hsd_cli.config import RayConfig, RunConfig
from hsd_cli.datatypes import PageResult, PageStatus
from hsd_cli.driver.choose import converter_for
from hsd_cli.errors import HsdError, OutputError
from hsd_cli.pages import inputs
from hsd_cli.pipeline.local import (
    Interrupt,
    prepare_config,
    run_options,
    run_summary,
    signals,
)
from hsd_cli.pipeline.plan import DocPlan, plan_document
from hsd_cli.pipeline.prepare import PrepareConfig
from hsd_cli.pipeline.ray import import_ray
from hsd_cli.pipeline.ray.cluster import connected, ray_log
from hsd_cli.pipeline.ray.stages import VerifyStage, prepare_batch
from hsd_cli.pipeline.verify import Verified, cause, page_line
from hsd_cli.pipeline.write import DocumentWriter, write_failed_document
from hsd_cli.report import store
from hsd_cli.report.progress import Line, RunProgress
from hsd_cli.report.summary import DocSummary, RunSummary, skipped_document

if TYPE_CHECKING:
    from hsd_cli.methods.base import PageConverter

PREPARE_CPUS = 1  # CPUs a prepare task holds in Ray's schedule (and its OCR engines' threads)


def run(
    cfg: RunConfig,
    *,
    quiet: bool = False,
    debug: bool = False,
    stdin: TextIO | None = None,
    err: TextIO | None = None,
) -> RunSummary:
    """Convert every document of this shard on Ray; OutputError when out_dir cannot be written."""
    ray = import_ray()
    err = err if err is not None else sys.stderr
    converter = converter_for(cfg)  # a missing model is one line before any worker starts; none loads here
    store.ensure_writable(cfg.out_dir)
    docs = inputs.shard(inputs.discover(cfg.inputs, cfg.glob, stdin, exclude=cfg.out_dir), *cfg.shard)
    options = run_options(cfg, converter.options_key())
    interrupt = Interrupt()
    summaries: list[DocSummary] = []
    with (
        run_summary(cfg, options, summaries, interrupt) as finish,
        ray_log(err, debug) as err,
        connected(ray, cfg.ray.address),
        signals(interrupt),
        RunProgress(len(docs), err, quiet) as progress,
    ):
        plans = [plan_document(doc, cfg, options) for doc in docs]
        driver = _Driver(cfg, plans, options, progress, debug, summaries)
        driver.finish_idle()
        progress.start_pages(sum(len(p.pages) for p in plans), sum(len(p.done) for p in plans))
        error = ""
        # Round 1 in page groups of --ray-batch; pages lost to a dying worker get a second round
        # one page per group, so a page that kills its worker every time takes no other along.
        for batch in (cfg.ray.batch, 1):
            if not driver.pending or interrupt.signum or error:
                break
            try:
                for row in _pipeline(ray, cfg, converter, plans, driver.pending, batch).iter_rows():
                    driver.receive(int(row["doc"]), int(row["page"]), pickle.loads(row["verified"]))
                    if interrupt.signum:
                        break
            except HsdError:
                raise
            except Exception as e:  # Ray's own failure: finish what we have, one line
                error = f"the Ray pipeline failed: {cause(e).splitlines()[0][:300]}"
                progress.error(error)
        driver.finish_rest("" if interrupt.signum or error else _lost(cfg))
        if interrupt.signum:
            name = signal.Signals(interrupt.signum).name
            progress.error(f"interrupted by {name}; finished pages are saved, rerun to resume")
    return finish(error)


def _lost(cfg: RunConfig) -> str:
    """Why a page that never came back failed: its worker died every time it was retried."""
    return f"lost: the worker verifying it died {2 * (cfg.ray.retries + 1)} times"


class _Driver:
    """Writes pages as they come, finishes each document once its last page is back."""

    def __init__(
        self,
        cfg: RunConfig,
        plans: list[DocPlan],
        options: dict[str, object],
        progress: RunProgress,
        debug: bool,
        summaries: list[DocSummary],
    ) -> None:
        self.cfg, self.plans, self.options = cfg, plans, options
        self.progress, self.debug, self.summaries = progress, debug, summaries
        self.pending = {i: set(p.todo) for i, p in enumerate(plans) if p.todo}
        self.writers: dict[int, tuple[DocumentWriter, ExitStack]] = {}
        self.done: dict[int, DocSummary] = {}

    def finish_idle(self) -> None:
        """Documents with no page to convert: failed, skipped, or all pages resumed."""
        for i in range(len(self.plans)):
            if i not in self.pending:
                self._finish(i)

    def receive(self, i: int, page: int, verified: Verified) -> None:
        if page not in self.pending.get(i, ()):
            return  # its document failed already, or a duplicate
        try:
            writer = self._writer(i)
            if not writer.take_fresh(page):
                for line in verified.lines:
                    self.progress.show(line, self.debug)
                writer.write(verified.result)
                self.progress.page_done(verified.result)
        except (OutputError, OSError) as e:
            self._fail(i, cause(e))
            return
        self.pending[i].discard(page)
        if not self.pending[i]:
            self._finish(i)

    def finish_rest(self, lost: str) -> None:
        """At the end: pages that never came back fail with `lost`; without it (interrupted)
        the documents already started are finished incomplete, the others left out."""
        for i in sorted(self.pending):
            if lost:
                doc = self.plans[i].doc
                for page in sorted(self.pending[i]):
                    result = PageResult(
                        str(doc.path), page, PageStatus.FAILED, method=self.options.get("method", ""), error=lost
                    )
                    self.receive(i, page, Verified(result, (Line("error", page_line(doc.name, page, lost)),)))
            elif i in self.writers:
                self._finish(i)

    def _writer(self, i: int) -> DocumentWriter:
        """The document's writer, holding its lock from its first page to its summary."""
        if i not in self.writers:
            plan, stack = self.plans[i], ExitStack()
            writer = DocumentWriter(plan, self.cfg, markdown_each_page=False)
            note = f"{plan.doc.name}: waiting for another run that holds it"
            try:
                stack.enter_context(writer.locked(lambda: self.progress.note(note)))
            except BaseException:
                stack.close()
                raise
            self.writers[i] = (writer, stack)
        return self.writers[i][0]

    def _finish(self, i: int) -> None:
        plan = self.plans[i]
        if plan.error:
            self._fail(i, plan.error)
            return
        if plan.skipped:
            self._done(i, skipped_document(str(plan.doc.path), plan.doc.key, plan.skipped))
            return
        try:
            summary = self._writer(i).finish()
        except (OutputError, OSError) as e:
            self._fail(i, cause(e))
            return
        self._done(i, summary)

    def _fail(self, i: int, error: str) -> None:
        doc = self.plans[i].doc
        self._release(i)  # write_failed_document needs no lock; a failed folder may hold none
        self.progress.error(f"{doc.name}: {error}")
        self._done(i, write_failed_document(doc, error, self.cfg.out_dir, self.options))

    def _done(self, i: int, summary: DocSummary) -> None:
        self._release(i)
        self.pending.pop(i, None)
        self.done[i] = summary
        self.summaries[:] = [self.done[k] for k in sorted(self.done)]  # in document order
        self.progress.doc_done(self.plans[i].doc.name, summary)

    def _release(self, i: int) -> None:
        if i in self.writers:
            self.writers.pop(i)[1].close()


def _pipeline(
    ray: ModuleType,
    cfg: RunConfig,
    converter: PageConverter,
    plans: list[DocPlan],
    pending: dict[int, set[int]],
    batch: int,
):
    """The dataset of the pending pages: prepare (CPU tasks, `batch` pages each) -> verify
    (actors) -> results."""
    rc = cfg.ray
    rows = [
        {"doc": i, "page": page, "name": plans[i].doc.name, "path": os.fsencode(plans[i].doc.path)}
        for i in sorted(pending)
        for page in sorted(pending[i])
    ]
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False  # the driver shows its own progress
    context.print_on_execution_start = False
    context.max_errored_blocks = -1  # a page group that keeps failing is recorded, not fatal
    logging.getLogger("ray.data").setLevel(logging.CRITICAL)  # lost pages get our own line
    gpus, actors = _verify_resources(ray, rc)
    env = {"env_vars": {k: v for k, v in os.environ.items() if k.startswith("HSD_")}}
    ds = ray.data.from_items(rows, override_num_blocks=max(1, math.ceil(len(rows) / batch)))
    ds = ds.map_batches(
        prepare_batch,
        fn_args=(task_prepare_config(cfg, converter),),
        batch_size=batch,
        batch_format="numpy",
        num_cpus=PREPARE_CPUS,
        runtime_env=env,
    )
    # A dead actor is restarted (Ray Data's default, any number of times) and the pages it had
    # are retried `retries` times; a page group that still fails is dropped and its pages are
    # recorded as failed by the driver (max_errored_blocks = -1), so a poison page cannot loop.
    # The actors build the driver's converter: a draft fallback is method `draft` there (no second warning).
    stage = type("VerifyStage", (VerifyStage,), {"cfg": replace(cfg, method=converter.method)})
    with warnings.catch_warnings():  # max_task_retries has no named parameter (yet)
        warnings.simplefilter("ignore", DeprecationWarning)
        return ds.map_batches(
            stage,
            batch_size=1,
            batch_format="numpy",
            compute=ray.data.ActorPoolStrategy(size=actors, max_tasks_in_flight_per_actor=1),
            num_gpus=gpus,
            num_cpus=0 if gpus else 1,
            runtime_env=env,
            max_restarts=-1,
            max_task_retries=rc.retries,
        )


def task_prepare_config(cfg: RunConfig, converter: PageConverter) -> PrepareConfig:
    """The prepare stage's settings in a Ray task: OCR engines on the CPUs the task holds."""
    # Ray runs one prepare task per CPU it schedules; ONNX Runtime would give each task's engines
    # every core of the node, so a node drafting N pages at once ran N x cores threads. The task
    # sees no GPU, whichever one the target has (--device cuda:N is the driver's, not the node's).
    return replace(prepare_config(cfg, converter), ocr_threads=PREPARE_CPUS, draft_device=None)


def _verify_resources(ray: ModuleType, rc: RayConfig) -> tuple[int, int]:
    """(GPUs per verify actor, actors): one GPU each and one actor per GPU where the cluster has
    GPUs; else CPU actors, leaving at least one CPU to the prepare tasks."""
    resources = ray.cluster_resources()
    gpus, cpus = int(resources.get("GPU", 0)), int(resources.get("CPU", 1))
    if gpus:
        return 1, rc.verify_actors or gpus
    return 0, max(1, min(rc.verify_actors or 1, cpus - 1))
