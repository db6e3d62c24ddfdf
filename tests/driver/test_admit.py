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


def _filled(depth: int, pages: int, limit: int) -> list[tuple[str, str]]:
    events: list = []
    batcher = Batcher(object(), limit, inputs_ahead=False)
    batcher.ahead = _Ahead(depth, events)
    batcher._start = lambda key, method, request: _BatchedPage(key, None, None, request=request)

    def admit(page: _BatchedPage) -> None:
        events.append(("prefill", page.request.prompt))
        batcher.in_batch.append(page)

    batcher._admit = admit
    works = [(i, None, RowsRequest((), f"p{i}", None, SpecConfig())) for i in range(pages)]
    batcher._fill(iter(works))
    return events


def test_a_page_is_prefilled_once_the_inputs_of_the_pages_after_it_are_being_made():
    """With inputs made in two threads, the first prefill waits until pages 2 and 3 have started
    theirs; every page is prefilled in order, each started before it."""
    events = _filled(depth=2, pages=5, limit=4)
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
    events = _filled(depth=1, pages=3, limit=3)
    assert events == [("inputs", "p0"), ("inputs", "p1"), ("prefill", "p0"), ("inputs", "p2")] + [
        ("prefill", "p1"),
        ("prefill", "p2"),
    ]
