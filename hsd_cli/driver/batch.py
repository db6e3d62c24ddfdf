"""The driver: page jobs decoded together, their requests' rows sharing every forward pass.

Up to `pages` page jobs are in the batch at once. Each job yields one request at a time
(`RowsRequest`: hsd's Stage-1 crops, then its page); the request is prefilled on its own and its
rows join the running batch (spec/decode.SpecStepper.add); when they stop, the job gets them back
and its next request joins, and a job that returns frees its place for the next page at once
(continuous batching). Batch 1 is the same loop with one page. A page that started before its
drafts were made (methods/late.py) has them join its running row before the pass after they arrive.

Out of memory: a prefill that fails beside running pages waits for a page to finish, and the
batch limit halves; a step that fails is undone and the newest half of the pages leave the batch to be run
again from their request's start (the output does not change: decoding is deterministic). A
page alone that still does not fit is served as before batching (driver/rows.serve: region crops
in halves, a single crop thrown into its job); past that the page fails alone.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, replace

from hsd_cli.datatypes import PageDecode
from hsd_cli.driver.ahead import InputsAhead
from hsd_cli.driver.priors import prior_for
from hsd_cli.driver.rows import join_late, prefill, serve, stage_report
from hsd_cli.methods.base import Method, PageJob, PageWork, RowsDone, RowsRequest
from hsd_cli.methods.crops import CropOutOfMemory
from hsd_cli.spec.budget import AcceptPrior
from hsd_cli.spec.decode import SpecStepper
from hsd_cli.targets.runtime.base import VisionTarget
from hsd_cli.targets.runtime.memory import is_oom, release

Outcome = PageDecode | Exception  # a page's decode, or what made it fail


@dataclass(slots=True)
class _BatchedPage:
    """A page job in the batch and its current request's accounting."""

    key: Hashable
    job: PageJob
    prior: AcceptPrior
    request: RowsRequest | None = None
    group: int = -1
    t_prefill: float = 0.0
    t_decode: float = 0.0
    steps: int = 0
    joined: bool = False  # the request's late drafts joined its rows (RowsRequest.late)

    def take_request(self, request: RowsRequest) -> None:
        """The job's next request, with the page's prior where the method chose none."""
        self.request = request if request.prior is not None else replace(request, prior=self.prior)
        self.group, self.t_prefill, self.t_decode, self.steps = -1, 0.0, 0.0, 0


class Batcher:
    """Decodes page jobs `pages` at a time on one target; outcomes come in the order pages finish."""

    def __init__(
        self, target: VisionTarget, pages: int = 1, inputs_ahead: bool | None = None, ahead_threads: int | None = None
    ) -> None:
        self.target, self.limit = target, max(1, pages)
        # The processor's host work in threads beside the model: where the model is on an accelerator.
        if inputs_ahead is None:
            inputs_ahead = getattr(getattr(target, "device", None), "type", "cpu") != "cpu"
        self.ahead = InputsAhead(target, inputs_ahead, ahead_threads)
        self._expect_rows()
        self.stepper = SpecStepper()
        self.in_batch: list[_BatchedPage] = []  # pages whose request's rows are in the batch
        self.waiting: deque[_BatchedPage] = deque()  # pages whose request waits for memory (out of memory)
        self.finished: deque[tuple[Hashable, Outcome]] = deque()
        self.rows_per_step: list[int] = []  # rows of each forward pass (batch occupancy)
        self.padded_per_step: list[int] = []  # tokens each forward pass computed: rows x widest tree
        self.seconds_per_step: list[float] = []  # wall time of each step (forward, accept, commit)
        self.slots_per_step: list[int] = []  # cache slots each row of the pass read (padded)

    def _expect_rows(self) -> None:
        """Tell the target's static engine (where it has one) how many rows the batch will hold."""
        engine = getattr(self.target, "static_engine", None)
        if engine is not None:
            engine.expect(self.limit)

    def run(self, works: Iterable[tuple[Hashable, Method, PageWork]]) -> Iterator[tuple[Hashable, Outcome]]:
        """Each work's (key, outcome), as soon as its page is done."""
        todo = iter(works)
        try:
            while True:
                more = self._fill(todo)
                self._join_arrived()
                if not self.stepper.done:
                    self._step()
                self._return_stopped_rows()
                yield from self._drain()
                if not (more or self.in_batch or self.waiting):
                    return
        finally:
            self.ahead.close()

    def _fill(self, todo: Iterator[tuple[Hashable, Method, PageWork]]) -> bool:
        """Admit waiting requests, then new pages, while the batch has places; False once `todo` is
        empty. A page is admitted once the inputs of the `ahead.depth` pages after it are being made
        (driver/ahead.py): the prefills wait for none of the processor's work they can overlap."""
        held: deque[_BatchedPage] = deque()
        more = True
        while len(self.in_batch) + len(held) < self.limit:
            if self.waiting:
                page = self.waiting.popleft()
            elif (work := next(todo, None)) is None:
                more = False
                break
            else:
                page = self._start(*work)
            if page is None:
                continue
            self.ahead.start(page.request)
            held.append(page)
            if len(held) > self.ahead.depth:
                self._admit(held.popleft())
        while held:  # the batch may have shrunk meanwhile (out of memory): the rest wait their turn
            page = held.popleft()
            if len(self.in_batch) < self.limit:
                self._admit(page)
            else:
                self.waiting.append(page)
        return more

    def _start(self, key: Hashable, method: Method, page_work: PageWork) -> _BatchedPage | None:
        """A new page's job, with its first request; None if it ended at once."""
        page = _BatchedPage(key, method.start(page_work), prior_for(page_work.draft_source))
        return page if self._move(page, lambda j: next(j)) else None

    def _resume(self, page: _BatchedPage, move: Callable[[PageJob], RowsRequest]) -> None:
        """Move the job on and admit what it asks next."""
        if self._move(page, move):
            self._admit(page)

    def _move(self, page: _BatchedPage, move: Callable[[PageJob], RowsRequest]) -> bool:
        """Move the job on (first request, rows back, an error thrown in); True if it asks for rows."""
        try:
            page.take_request(move(page.job))
        except StopIteration as returned:
            self._leave(page, returned.value)
        except Exception as e:  # the page fails alone
            self._leave(page, e)
        else:
            return True
        return False

    def _admit_all(self, pages: list[_BatchedPage]) -> None:
        """Admit the pages in order, each one's inputs made while the ones before it prefill."""
        for page in pages:
            self.ahead.start(page.request)
        for page in pages:
            self._admit(page)

    def _admit(self, page: _BatchedPage) -> None:
        """Prefill the page's request and put its rows beside the running ones."""
        try:
            p = prefill(self.target, page.request, self.ahead)
        except Exception as e:
            self._not_admitted(page, e)
            return
        page.group = self.stepper.add(p.session, p.first, p.drafts, p.cfg, p.rule, p.opts)
        page.t_prefill, page.joined = p.t_prefill, False  # run again after an eviction: drafts join anew
        if page not in self.in_batch:
            self.in_batch.append(page)

    def _not_admitted(self, page: _BatchedPage, e: Exception) -> None:
        others = [x for x in self.in_batch if x is not page]
        if page in self.in_batch:
            self.in_batch.remove(page)
        if not is_oom(e):
            self._leave(page, e)
            return
        release()
        if others:  # memory frees when a running page finishes; the batch halves meanwhile
            self.limit = max(1, (len(others) + 1) // 2)
            self._expect_rows()
            self.waiting.appendleft(page)
        else:
            self._serve_alone(page)

    def _join_arrived(self) -> None:
        """Drafts that arrived since the last pass join the rows of pages that started without them."""
        live = self.stepper.running_groups()
        for x in self.in_batch:
            if x.request.late is not None and not x.joined and x.group in live:
                x.joined = join_late(self.stepper, x.group, self.target, x.request)

    def _step(self) -> None:
        """One forward pass over the batch, charged to every request with rows in it."""
        stepper, t0 = self.stepper, time.perf_counter()
        live = stepper.running_groups()
        running = [x for x in self.in_batch if x.group in live]
        rows, slots = len(stepper.active), stepper.session.slots()
        try:
            stepper.step()
        except Exception as e:
            if is_oom(e):
                stepper.session.rollback()
                release()
                self._shrink()
            else:  # not one page's fault: the batch's pages fail with it, the run goes on
                self.stepper = SpecStepper()
                for x in list(self.in_batch):
                    self._leave(x, e)
            return
        dt = time.perf_counter() - t0
        self.rows_per_step.append(rows)
        self.padded_per_step.append(rows * stepper.width)
        self.seconds_per_step.append(dt)
        self.slots_per_step.append(slots)
        for x in running:
            x.steps += 1
            x.t_decode += dt

    def _shrink(self) -> None:
        """Out of memory in a step: the newest half of the pages leave, to run again later."""
        keep = len(self.in_batch) // 2
        leaving = self.in_batch[keep:] if keep else self.in_batch[:]
        for x in leaving:
            self.stepper.evict(x.group)
            self.stepper.pop(x.group)
            self.in_batch.remove(x)
        if keep:
            self.limit = keep
            self._expect_rows()
            self.waiting.extendleft(reversed(leaving))
        else:
            self._serve_alone(leaving[0])

    def _serve_alone(self, page: _BatchedPage) -> None:
        """A request that does not fit even alone: served the way a lone request always was."""
        try:
            done = serve(self.target, page.request)
        except CropOutOfMemory as e:
            self._resume(page, lambda j, e=e: j.throw(e))  # hsd verifies the page with the page method
        except Exception as e:
            self._leave(page, e)
        else:
            self._resume(page, lambda j: j.send(done))

    def _return_stopped_rows(self) -> None:
        """Requests whose rows all stopped go back to their jobs."""
        asking = []
        live = self.stepper.running_groups()
        for x in [x for x in self.in_batch if x.group not in live]:
            rows = self.stepper.pop(x.group)
            done = RowsDone(tuple(rows), stage_report(rows, x.steps, x.t_prefill, x.t_decode))
            if self._move(x, lambda j, d=done: j.send(d)):
                asking.append(x)
        self._admit_all(asking)

    def _leave(self, page: _BatchedPage, outcome: Outcome) -> None:
        if page in self.in_batch:
            self.in_batch.remove(page)
        self.finished.append((page.key, outcome))

    def _drain(self) -> Iterator[tuple[Hashable, Outcome]]:
        while self.finished:
            yield self.finished.popleft()
