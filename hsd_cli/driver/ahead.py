"""Prefill inputs made ahead: the processor's host work for the requests about to join, in threads.

The processor resizes, normalises and cuts each page image into patches and tokenises the
prompt on the host: 0.1-0.65 s a dev page image on one core of this project's CPUs, where a
page's whole prefill on the H200 took 0.15 s. One thread beside the model left batch 32's
prefills bound by it (4.7 s of `ar`'s 11.9 s on the H200, 0.15 s a page, about its processor's
time), so several threads make the inputs of the next pages at once: PIL's resampling and
numpy's arithmetic release the GIL: on a 2-core CPU two threads made 15 dev pages' inputs in
1.1-1.5 s against one thread's 2.2-3.2 s. The inputs are what the target would make itself (the
same processor, a copy per thread: a fast tokenizer refuses use from two threads at once).
"""

from __future__ import annotations

import queue
from concurrent.futures import Future, ThreadPoolExecutor

from hsd_cli.cores import input_threads
from hsd_cli.methods.base import RowsRequest


class InputsAhead:
    """Starts requests' encoding in background threads; `take` hands each to its prefill."""

    def __init__(self, target, on: bool, threads: int | None = None) -> None:
        factory = getattr(target, "inputs_maker", None) if on else None  # a target may not make them ahead
        makers = []
        for _ in range(threads or input_threads()) if factory is not None else ():
            if (make := factory()) is None:  # the processor cannot be copied: made inline
                break
            makers.append(make)
        self._makers: queue.SimpleQueue = queue.SimpleQueue()  # each in one thread at a time
        for make in makers:
            self._makers.put(make)
        self.depth = max(1, len(makers))  # requests worth starting before the first is prefilled
        self._pool = ThreadPoolExecutor(len(makers), thread_name_prefix="hsd-inputs") if makers else None
        # id(request) -> (the request, kept so that its id stays its own; its inputs being made)
        self._pending: dict[int, tuple[RowsRequest, Future]] = {}

    def start(self, request: RowsRequest) -> None:
        """Begin making `request`'s inputs, if this target makes them ahead."""
        if self._pool is not None and id(request) not in self._pending and _loaded(request.images):
            future = self._pool.submit(self._make, list(request.images), request.prompt)
            self._pending[id(request)] = (request, future)

    def take(self, request: RowsRequest):
        """`request`'s inputs, once made (an encoding error is raised here, as the prefill's own);
        None where none were started: the target makes them itself."""
        entry = self._pending.pop(id(request), None)
        return None if entry is None else entry[1].result()

    def close(self) -> None:
        self._pending.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _make(self, images, prompt: str):
        make = self._makers.get()
        try:
            return make(images, prompt)
        finally:
            self._makers.put(make)


def _loaded(images) -> bool:
    """Whether the images' pixels are in memory (read here, not in two threads at once); an image
    that cannot be read is left to the prefill, which fails its page alone."""
    try:
        for image in images:
            image.load()
    except Exception:  # noqa: BLE001 - the prefill reports it
        return False
    return True
