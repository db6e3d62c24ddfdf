"""driver/ahead.py: a request's inputs made in a thread, handed to its prefill, errors included."""

from __future__ import annotations

import threading

import pytest
from PIL import Image

from hsd_cli.config import SpecConfig
from hsd_cli.driver.ahead import InputsAhead
from hsd_cli.methods.base import RowsRequest


class _Target:
    def __init__(self, copyable: bool = True) -> None:
        self.copyable = copyable

    def inputs_maker(self):
        def make(images, prompt):
            if prompt == "bad":
                raise ValueError("image too small")
            return (tuple(images), prompt, threading.current_thread().name)

        return make if self.copyable else None


IMAGE = Image.new("RGB", (8, 8), "white")


def _request(prompt: str = "page", image=IMAGE) -> RowsRequest:
    return RowsRequest((image,), prompt, None, SpecConfig())


def test_inputs_are_made_in_the_thread_and_taken_once():
    ahead, request = InputsAhead(_Target(), on=True), _request()
    ahead.start(request)
    images, prompt, thread = ahead.take(request)
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
