"""The engines as hsd loads them: the detector's input normalised through a table, bit for bit
the library's own."""

from __future__ import annotations

import numpy as np
import pytest
from rapidocr.ch_ppocr_det.utils import DetPreProcess

from hsd_cli.drafts.rapid_engines import _normalized, load_engines


@pytest.fixture(scope="module")
def detector():
    ocr, _ = load_engines(0.5, 1, "cpu")
    return ocr._load_det_model()


@pytest.mark.parametrize("shape", [(37, 53, 3), (700, 1500, 3)])
def test_the_detectors_input_is_the_librarys_bit_for_bit(detector, shape) -> None:
    """Every 8-bit value in every channel; a page wider than the detector's limit (resized first)."""
    image = np.random.default_rng(shape[0]).integers(0, 256, shape, dtype=np.uint8)
    image.reshape(-1)[:768] = np.repeat(np.arange(256), 3)
    ours = detector.get_preprocess()
    assert ours.normalize.func is _normalized  # the table's path
    assert np.array_equal(ours(image), _plain(detector)(image))


def test_pixels_that_are_not_8_bit_take_the_librarys_own_arithmetic(detector) -> None:
    image = np.random.default_rng(0).random((40, 60, 3), dtype=np.float32) * 255
    assert np.array_equal(detector.get_preprocess().normalize(image), _plain(detector).normalize(image))


def _plain(detector) -> DetPreProcess:
    return DetPreProcess(detector.limit_side_len, detector.limit_type, detector.mean, detector.std)
