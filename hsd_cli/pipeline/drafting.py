"""Drafting beside decoding: a page starts once it is rendered, its drafts join it when made.

With a model and drafting workers (workers.PrepareQueue(overlap=True)), the worker processes draft
pages ahead of and beside the decode, and no page waits for them: the batch reads a page when it
has room for it, and a page whose drafts are not made by then is rendered in this process (what
`ar` pays) and comes with a `LatePage` handle (datatypes.LateDrafts). The driver polls it between
forward passes and the drafts join the page's running row (methods/late.py); a page decoded before
its drafts were made drops them, and they are not made at all if no worker had started them.

Drafting order, at most one page per worker at a time: expected gain per drafting second. A page
with a text layer drafts in about 0.3 s (pymupdf-layout) and its drafts are the document's own
characters (page-method AAL 8.5 with the oracle target, driver/priors.py); a page to OCR costs
about 1.7 s on the H100 host (a page image) for AAL 5.0: some 28 against 3 accepted tokens a
step per drafting second. So pages whose PDF page uses fonts (likely a text layer) go first, the
rest after; within each, input order (the page decoding now, or next, first).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import replace
from pathlib import Path

import pymupdf

from hsd_cli.datatypes import PreparedPage

TICK = 0.05  # seconds the scheduler sleeps at most before it looks at new pages
TEXT_LAYER, OCR, URGENT = 1, 2, 0  # ranks: lower drafts first

Submit = Callable[[Path, int], Future]  # draft one page in a worker: a Future of its PreparedPage
Render = Callable[[Path, int], PreparedPage]  # render one page in this process, no drafts


class LatePage:
    """One page's drafting (datatypes.LateDrafts), from the moment the queue sees it."""

    def __init__(self, pool: DraftingPool, index: int, path: Path, page: int, rank: int) -> None:
        self.pool, self.index, self.path, self.page, self.rank = pool, index, path, page, rank
        self.future: Future | None = None  # set when a worker takes it
        self.rendered: PreparedPage | None = None  # set when the page started without its drafts

    def order(self) -> tuple[int, int]:
        return self.rank, self.index

    def take(self, render: Render) -> PreparedPage | BaseException:
        """The page for the batch: drafted if its drafts are made, else rendered with `later`."""
        f = self.future
        if f is not None and f.done():
            try:
                return f.result()
            except Exception as e:  # noqa: BLE001 - the page's own failure, reported by the runner
                return e
        try:
            self.rendered = render(self.path, self.page)
        except Exception as e:  # noqa: BLE001
            self.drop()
            return e
        return replace(self.rendered, later=self)

    def poll(self) -> PreparedPage | None:
        f = self.future
        return self._result(f) if f is not None and f.done() else None

    def wait(self) -> PreparedPage:
        self.pool.hurry(self)
        while self.future is None:
            if self.pool.closed.wait(TICK):
                raise RuntimeError("the drafting workers were closed")
        return self._result(self.future)

    def drop(self) -> None:
        self.pool.drop(self)

    def _result(self, f: Future) -> PreparedPage:
        """The drafted page; a worker that failed costs the drafts, not the page (it is rendered)."""
        try:
            return f.result()
        except Exception as e:  # noqa: BLE001
            error = f"{type(e).__name__}: {e}".splitlines()[0][:200]
            return replace(self.rendered, later=None, draft_error=error)


class DraftingPool:
    """Hands pages to `slots` workers, one each at a time, best rank first (a scheduler thread)."""

    def __init__(self, submit: Submit, slots: int, password: str | None = None) -> None:
        self._submit, self._slots = submit, slots
        self._lock = threading.Lock()
        self._waiting: list[LatePage] = []
        self._running: list[Future] = []
        self._count = 0
        self._probe = _Probe(password)
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="hsd-drafting", daemon=True)

    def start(self) -> None:
        """Hand pages out from now on (called again, nothing): once the first pages are added, so
        that the best of them go first."""
        if self._thread.ident is None:
            self._thread.start()

    def add(self, path: Path, page: int) -> LatePage:
        """A page the queue will hand out; it is drafted when its turn comes."""
        entry = LatePage(self, self._count, path, page, self._probe.rank(path, page))
        self._count += 1
        with self._lock:
            self._waiting.append(entry)
        return entry

    def hurry(self, entry: LatePage) -> None:
        """The page is waited for: it goes first."""
        entry.rank = URGENT

    def drop(self, entry: LatePage) -> None:
        with self._lock:
            if entry in self._waiting:
                self._waiting.remove(entry)
        if entry.future is not None:
            entry.future.cancel()  # only if no worker took it yet

    def close(self) -> None:
        self.closed.set()
        if self._thread.is_alive():
            self._thread.join()
        self._probe.close()

    def _loop(self) -> None:
        while not self.closed.is_set():
            with self._lock:
                self._running = [f for f in self._running if not f.done()]
                while len(self._running) < self._slots and self._waiting:
                    entry = min(self._waiting, key=LatePage.order)
                    self._waiting.remove(entry)
                    entry.future = self._start(entry)
                    self._running.append(entry.future)
                running = list(self._running)
            if running:
                wait(running, TICK, FIRST_COMPLETED)
            else:
                self.closed.wait(TICK)

    def _start(self, entry: LatePage) -> Future:
        try:
            return self._submit(entry.path, entry.page)
        except Exception as e:  # noqa: BLE001 - a broken pool costs the drafts of the pages left
            failed: Future = Future()
            failed.set_exception(e)
            return failed


class _Probe:
    """A page's rank from a glance at its PDF page (fonts used: likely a text layer); one
    document open at a time, as the runner goes through documents in order."""

    def __init__(self, password: str | None) -> None:
        self.password = password
        self._open: tuple[Path, pymupdf.Document | None] | None = None

    def rank(self, path: Path, page: int) -> int:
        doc = self._document(path)
        try:
            return TEXT_LAYER if doc is not None and doc[page - 1].get_fonts() else OCR
        except Exception:  # noqa: BLE001 - only an order: a page that cannot be read is drafted last
            return OCR

    def _document(self, path: Path) -> pymupdf.Document | None:
        if self._open is None or self._open[0] != path:
            self.close()
            self._open = (path, _open_pdf(path, self.password))
        return self._open[1]

    def close(self) -> None:
        if self._open is not None and self._open[1] is not None:
            self._open[1].close()
        self._open = None


def _open_pdf(path: Path, password: str | None) -> pymupdf.Document | None:
    """The PDF, or None (an image file, or a PDF that does not open: its pages rank as OCR's)."""
    if path.suffix.lower() != ".pdf":
        return None
    try:
        doc = pymupdf.open(path)
    except Exception:  # noqa: BLE001
        return None
    if doc.needs_pass and not (password and doc.authenticate(password)):
        doc.close()
        return None
    return doc
