"""Prepared pages made ahead in background processes (`PrepareQueue`), in task order: drafted
(pipeline/prepare.py's Preparer in each worker), or rendered alone beside a model on a GPU; the
local runner and `hsd bench` read pages through it."""

from __future__ import annotations

import multiprocessing
import signal
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

from hsd_cli.cores import worker_threads
from hsd_cli.datatypes import PreparedPage
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer, strip_layer
from hsd_cli.targets.runtime import threads

RENDERERS = 2  # processes rendering ahead beside a model on a GPU: pages come at a few a second
_WORKER: Preparer | None = None
_BUSY = None  # the cores workers draft on now (threads.CoreShare.busy), or None beside no model


def _init_worker(cfg: PrepareConfig, busy) -> None:
    global _WORKER, _BUSY
    # The terminal's Ctrl-C reaches the whole process group; the parent decides what stops.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    _WORKER = Preparer(cfg)
    _BUSY = busy


def _die_with_parent() -> None:
    """Linux: a parent killed with SIGKILL takes its workers along (no orphans holding pipes)."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: orphans exit when their call queue closes
        pass


def _prepare_in_worker(path: Path, page: int) -> PreparedPage:
    assert _WORKER is not None
    busy = nullcontext() if _BUSY is None else threads.drafting(_BUSY, _WORKER.cfg.ocr_threads or 1)
    with busy:
        return strip_layer(_WORKER(path, page))


class PrepareQueue:
    """Prepared pages in task order, made `workers` processes ahead of the consumer.

    With workers = 0, or no drafts to make, pages are prepared inline, on demand: rendering alone
    is cheap beside a model on the CPU. Beside a model on a GPU (`render_ahead`) it is not (some
    35 ms a page against a 15 ms pass at batch 32, and the loop waits), so RENDERERS processes
    render ahead the pages read without drafts (`ar`'s, and with `overlap` those whose drafts are
    not made yet). Otherwise at most `ahead` pages are prepared or in flight at once
    (bounded memory); a failure is re-raised when its page is read. `beside_model`: this process
    runs a model on the CPU cores, which takes those the workers leave idle (runtime/threads.py).
    `overlap`: the consumer may start a page before its drafts are made (pipeline/drafting.py):
    a page whose drafts are not ready when it is read is rendered here and comes with `later`.
    """

    def __init__(
        self,
        cfg: PrepareConfig,
        workers: int,
        ahead: int | None = None,
        beside_model: bool = False,
        overlap: bool = False,
        render_ahead: bool = False,
    ) -> None:
        workers = workers if cfg.drafts is not None else 0
        self.cfg = cfg if not workers or cfg.ocr_threads else replace(cfg, ocr_threads=worker_threads(workers))
        self.workers = workers
        # Pages rendered alone: those without drafts, and those starting before their drafts.
        alone = cfg.drafts is None or (overlap and workers > 0)
        self.renderers = RENDERERS if render_ahead and alone else 0
        self.ahead = ahead or 2 * (workers or self.renderers)
        self.beside_model, self.overlap = beside_model, overlap
        self._pool: ProcessPoolExecutor | None = None
        self._drafting = None  # the overlap's DraftingPool
        self._renders: _Renders | None = None

    def run(self, tasks: Iterable[tuple[Path, int]]) -> Iterator[PreparedPage | BaseException]:
        """For each task, in order: a PreparedPage, or the exception its preparation raised."""
        ctx = multiprocessing.get_context("spawn")  # fork after torch's threads started is unsafe
        # Without workers this process prepares each page whole; with them it renders alone.
        here = self.cfg if self.workers == 0 else replace(self.cfg, drafts=None)
        self._renders = _Renders(here, self.renderers, ctx)
        if self.workers == 0:
            yield from self._run_here(tasks)
            return
        busy = self._lend(ctx) if self.beside_model else None
        self._pool = ProcessPoolExecutor(self.workers, ctx, _init_worker, (self.cfg, busy))
        if self.overlap:
            yield from self._run_overlapped(tasks)
            return
        pending: deque[Future] = deque()
        todo = iter(tasks)
        try:
            while True:
                while len(pending) < self.ahead and (task := next(todo, None)) is not None:
                    pending.append(self._pool.submit(_prepare_in_worker, *task))
                if not pending:
                    return
                future = pending.popleft()
                try:
                    yield future.result()
                except Exception as e:  # noqa: BLE001 - the page's own failure, reported by the runner
                    yield e
        finally:
            self.close()

    def _run_overlapped(self, tasks: Iterable[tuple[Path, int]]) -> Iterator[PreparedPage | BaseException]:
        """Pages as soon as they are rendered; the workers draft the most paying pages meanwhile.
        The last pages read may still wait for their drafts: the workers stop at `close`."""
        from hsd_cli.pipeline.drafting import DraftingPool

        submit = lambda *task: self._pool.submit(_prepare_in_worker, *task)  # noqa: E731
        self._drafting = drafting = DraftingPool(submit, self.workers, self.cfg.password)
        renders = self._renders
        window: deque = deque()
        todo = iter(tasks)
        while True:
            while len(window) <= self.ahead and (task := next(todo, None)) is not None:
                window.append((drafting.add(*task), renders.start(*task)))
            drafting.start()  # the first window's best pages go first
            if not window:
                return
            entry, ahead = window.popleft()
            page = entry.take(lambda path, number: renders.take(ahead, path, number))  # noqa: B023
            renders.cancel(ahead)  # drafted already: its rendering ahead is not needed
            yield page

    def _run_here(self, tasks: Iterable[tuple[Path, int]]) -> Iterator[PreparedPage | BaseException]:
        """Pages prepared here, on demand; without drafts, rendered ahead by `renderers` processes."""
        window: deque = deque()
        todo = iter(tasks)
        try:
            while True:
                while len(window) <= self.ahead and (task := next(todo, None)) is not None:
                    window.append((task, self._renders.start(*task)))
                if not window:
                    return
                task, ahead = window.popleft()
                try:
                    yield self._renders.take(ahead, *task)
                except Exception as e:  # noqa: BLE001 - the page's own failure, reported by the runner
                    yield e
        finally:
            self.close()

    def _lend(self, ctx):
        """The model's threads follow the workers' idle cores; returns the workers' busy counter."""
        import torch

        share = threads.CoreShare(ctx.Value("i", 0), torch.get_num_threads())
        threads.lend(share)
        return share.busy

    def close(self) -> None:
        """Stop the workers; pages not yet started are dropped."""
        if self.beside_model:
            threads.reclaim()
        if self._renders is not None:
            self._renders.close()
            self._renders = None
        if self._drafting is not None:  # nobody waits for the drafts still being made: stop them
            self._drafting.close()
            self._drafting = None
            for process in list((getattr(self._pool, "_processes", None) or {}).values()):
                process.terminate()  # a worker still starting would fail on the run's freed resources
            self._pool.shutdown(wait=True, cancel_futures=True)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


class _Renders:
    """Pages prepared by `cfg` here, or ahead in `processes` processes where asked (pages rendered
    alone: `cfg` has no drafts). A page no process has started when it is read is prepared here,
    so none waits for them."""

    def __init__(self, cfg: PrepareConfig, processes: int, ctx) -> None:
        self._here = Preparer(cfg)
        self._pool = ProcessPoolExecutor(processes, ctx, _init_worker, (cfg, None)) if processes else None

    def start(self, path: Path, page: int) -> Future | None:
        """The page's preparation ahead, or None (prepared here when read)."""
        return None if self._pool is None else self._pool.submit(_prepare_in_worker, path, page)

    def take(self, ahead: Future | None, path: Path, page: int) -> PreparedPage:
        """The page prepared: by its process if one started on it, else here."""
        if ahead is None or ahead.cancel():
            return strip_layer(self._here(path, page))
        return ahead.result()

    @staticmethod
    def cancel(ahead: Future | None) -> None:
        if ahead is not None:
            ahead.cancel()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
