"""driver/ahead.py: a request's inputs made in a thread, handed to its prefill, errors included."""

from __future__ import annotations

import threading

import pytest
from PIL import Image

from hsd_cli import cores
from hsd_cli.config import SpecConfig
from hsd_cli.driver.ahead import InputsAhead
from hsd_cli.methods.base import RowsRequest


class _Target:
    def __init__(self, copyable: bool = True, barrier: threading.Barrier | None = None) -> None:
        self.copyable, self.barrier, self.makers = copyable, barrier, 0

    def inputs_maker(self):
        """A maker of its own each call (a processor copy), which must not run in two threads at once."""
        self.makers += 1
        mine, busy = self.makers, threading.Lock()

        def make(images, prompt):
            assert busy.acquire(blocking=False), "a maker used from two threads at once"
            try:
                if self.barrier is not None:
                    self.barrier.wait()  # every thread's request is being made at the same time
                if prompt == "bad":
                    raise ValueError("image too small")
                return (tuple(images), prompt, threading.current_thread().name, mine)
            finally:
                busy.release()

        return make if self.copyable else None


IMAGE = Image.new("RGB", (8, 8), "white")


def _request(prompt: str = "page", image=IMAGE) -> RowsRequest:
    return RowsRequest((image,), prompt, None, SpecConfig())


def test_inputs_are_made_in_the_thread_and_taken_once():
    ahead, request = InputsAhead(_Target(), on=True), _request()
    ahead.start(request)
    images, prompt, thread, _ = ahead.take(request)
    assert (images, prompt) == ((IMAGE,), "page") and thread.startswith("hsd-inputs")
    assert ahead.take(request) is None  # taken: a rerun of the request makes them inline
    ahead.close()


@pytest.mark.parametrize("ahead", [InputsAhead(_Target(), on=False), InputsAhead(_Target(copyable=False), on=True)])
def test_off_or_without_a_copy_the_target_makes_its_inputs(ahead):
    request = _request()
    ahead.start(request)
    assert ahead.take(request) is None


def test_a_target_that_cannot_make_inputs_ahead_makes_them_itself():
    ahead, request = InputsAhead(object(), on=True), _request()
    ahead.start(request)
    assert ahead.take(request) is None


def test_an_error_making_inputs_is_raised_where_the_prefill_takes_them():
    ahead, request = InputsAhead(_Target(), on=True), _request("bad")
    ahead.start(request)
    with pytest.raises(ValueError, match="too small"):
        ahead.take(request)
    ahead.close()


def test_an_image_that_cannot_be_read_is_left_to_the_prefill(tmp_path):
    """A file image whose pixels fail to load is not read in the thread: its prefill fails its page."""
    path = tmp_path / "cut.png"
    Image.new("RGB", (64, 64)).save(path)
    path.write_bytes(path.read_bytes()[:60])  # the header survives, the pixels do not
    ahead, request = InputsAhead(_Target(), on=True), _request(image=Image.open(path))
    ahead.start(request)
    assert ahead.take(request) is None
    ahead.close()


def test_several_requests_inputs_are_made_at_once_each_by_its_own_maker():
    """Threads make the next requests' inputs side by side (the barrier needs all three at once),
    each with a processor copy that no other thread uses meanwhile."""
    target = _Target(barrier=threading.Barrier(3, timeout=10))
    ahead, requests = InputsAhead(target, on=True, threads=3), [_request(f"page {i}") for i in range(6)]
    for request in requests:
        ahead.start(request)
    made = [ahead.take(request) for request in requests]
    assert [m[1] for m in made] == [f"page {i}" for i in range(6)] and ahead.depth == 3
    assert target.makers == 3 and {m[3] for m in made} == {1, 2, 3}
    ahead.close()


def test_a_processor_that_cannot_be_copied_leaves_one_request_ahead_made_inline():
    ahead = InputsAhead(_Target(copyable=False), on=True, threads=4)
    ahead.start(request := _request())
    assert ahead.take(request) is None and ahead.depth == 1


@pytest.mark.parametrize(("cpus", "threads"), [(1, 1), (2, 1), (8, 2), (16, 4), (128, 4)])
def test_a_quarter_of_the_cores_make_inputs(monkeypatch, cpus, threads):
    monkeypatch.setattr(cores, "allowed_cpus", lambda: cpus)
    assert cores.input_threads() == threads
