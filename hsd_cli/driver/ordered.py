"""Pages come out of a batch as they finish; a run writes them in the order they went in."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field


@dataclass(slots=True)
class _Page:
    context: tuple = ()  # what finishing the page needs besides its decodes
    parts: tuple[str, ...] = ("page",)  # the decodes it waits for ("page", maybe its AR "baseline")
    decodes: dict = field(default_factory=dict)
    failed: BaseException | None = None

    def complete(self) -> bool:
        return self.failed is not None or all(p in self.decodes for p in self.parts)


class InOrder:
    """A reorder buffer: outcomes in any order in, each page's outcome out in input order."""

    def __init__(self) -> None:
        self.queue: deque[Hashable] = deque()
        self.pages: dict[Hashable, _Page] = {}

    def expect(self, key: Hashable, *context: object, parts: tuple[str, ...] = ("page",)) -> None:
        self.queue.append(key)
        self.pages[key] = _Page(tuple(context), parts)

    def fail(self, key: Hashable, error: BaseException) -> None:
        self.pages[key].failed = error

    def done(self, key: tuple[Hashable, str], out: object) -> None:
        """One decode of a page: `key` is (page key, part); an exception fails the page."""
        page = self.pages[key[0]]
        if isinstance(out, BaseException):
            page.failed = page.failed or out
        else:
            page.decodes[key[1]] = out

    def ready(self, finish: Callable[..., object]) -> Iterator[tuple[Hashable, object]]:
        """The complete pages at the front: (key, finish(*context, decodes) or the failure)."""
        while self.queue and self.pages[self.queue[0]].complete():
            key = self.queue.popleft()
            page = self.pages.pop(key)
            if page.failed is not None:
                yield key, page.failed
                continue
            try:
                yield key, finish(*page.context, page.decodes)
            except Exception as e:  # the page's result could not be made: it fails alone
                yield key, e
