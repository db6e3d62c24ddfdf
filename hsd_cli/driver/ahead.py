"""Prefill inputs made ahead: the processor's host work for the requests about to join, in a thread.

The processor resizes, normalises and cuts each page image into patches and tokenises the
prompt on the host: 0.1-0.65 s a dev page image on one core of this project's CPUs, where a
page's whole prefill on the H200 took 0.17 s (batch 32). Made in a thread while the model runs
the prefills before it, that work leaves the decode loop's critical path. The inputs are what
the target would make itself (the same processor, copied so that its tokenizer is not used from
two threads at once).
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor

from hsd_cli.methods.base import RowsRequest


class InputsAhead:
    """Starts a request's encoding in a background thread; `take` hands it to the prefill."""

    def __init__(self, target, on: bool) -> None:
        make = getattr(target, "inputs_maker", None) if on else None  # a target may not make them ahead
        self._make = make() if make is not None else None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="hsd-inputs") if self._make else None
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


def _loaded(images) -> bool:
    """Whether the images' pixels are in memory (read here, not in two threads at once); an image
    that cannot be read is left to the prefill, which fails its page alone."""
    try:
        for image in images:
            image.load()
    except Exception:  # noqa: BLE001 - the prefill reports it
        return False
    return True
