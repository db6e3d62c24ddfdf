"""driver/batch.py: how pages are admitted (the decoding itself: tests/targets/test_batched.py)."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.driver.batch import Batcher, _BatchedPage
from hsd_cli.methods.base import RowsRequest


class _Ahead:
    """InputsAhead's interface, recording when each request's inputs start."""

    def __init__(self, depth: int, events: list) -> None:
        self.depth, self.events = depth, events

    def start(self, request: RowsRequest) -> None:
        self.events.append(("inputs", request.prompt))

    def close(self) -> None:
        pass


def _filled(depth: int, pages: int, limit: int, full: str = "") -> tuple[list[tuple[str, str]], Batcher]:
    """The events of one fill; the prefill of page `full` finds the memory full (the batch halves
    to the pages in it and that page waits, as Batcher._not_admitted does)."""
    events: list = []
    batcher = Batcher(object(), limit, inputs_ahead=False)
    batcher.ahead = _Ahead(depth, events)
    batcher._start = lambda key, method, request: _BatchedPage(key, None, None, request=request)

    def admit(page: _BatchedPage) -> None:
        events.append(("prefill", page.request.prompt))
        if page.request.prompt == full:
            batcher.limit = len(batcher.in_batch)
            batcher.waiting.appendleft(page)
        else:
            batcher.in_batch.append(page)

    batcher._admit = admit
    works = [(i, None, RowsRequest((), f"p{i}", None, SpecConfig())) for i in range(pages)]
    batcher._fill(iter(works))
    return events, batcher


def test_a_page_is_prefilled_once_the_inputs_of_the_pages_after_it_are_being_made():
    """With inputs made in two threads, the first prefill waits until pages 2 and 3 have started
    theirs; every page is prefilled in order, each started before it."""
    events, _ = _filled(depth=2, pages=5, limit=4)
    assert events == [
        ("inputs", "p0"),
        ("inputs", "p1"),
        ("inputs", "p2"),
        ("prefill", "p0"),
        ("inputs", "p3"),
        ("prefill", "p1"),
        ("prefill", "p2"),
        ("prefill", "p3"),
    ]


def test_one_thread_keeps_one_page_ahead():
    events, _ = _filled(depth=1, pages=3, limit=3)
    assert events == [("inputs", "p0"), ("inputs", "p1"), ("prefill", "p0"), ("inputs", "p2")] + [
        ("prefill", "p1"),
        ("prefill", "p2"),
    ]


def test_pages_whose_inputs_were_started_wait_when_the_batch_shrank():
    """Out of memory at page 1's prefill: the batch holds page 0 alone, and pages 2 and 3, whose
    inputs were being made, wait for their turn instead of being prefilled past the new limit."""
    events, batcher = _filled(depth=2, pages=5, limit=4, full="p1")
    assert [e for e in events if e[0] == "prefill"] == [("prefill", "p0"), ("prefill", "p1")]
    assert [x.request.prompt for x in batcher.waiting] == ["p1", "p2", "p3"]
