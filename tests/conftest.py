"""Shared fixtures: tiny random-weight targets of the real architectures, built offline."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
import torch

from hsd_cli.spec.budget import CostModel

os.environ["HF_HUB_OFFLINE"] = "1"  # a test must never need the network
# Measured forward-cost curves (targets/runtime/costs.py) go to a throwaway cache, not the user's.
os.environ.setdefault("HSD_CACHE_DIR", tempfile.mkdtemp(prefix="hsd-test-cache-"))
# Tiny models are overhead-bound: one thread is ~30x faster than two OpenMP threads fighting
# for 2 cores with anything else (measured: 6 draft sets 12.4 s -> 0.33 s).
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).parent))
torch.set_num_threads(1)
# benchmarks/gpu.py runs the lossless and batching tests on the GPU with HSD_TEST_DEVICE=cuda.
TEST_DEVICE = os.environ.get("HSD_TEST_DEVICE", "cpu")

# A small model's forward on a CPU: (tree tokens, seconds), growing mildly with the tree.
FIXED_COST = CostModel(((1, 1.0), (32, 1.5), (256, 4.0)))


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory):
    """family -> directory of a tiny checkpoint, built once per session."""
    from make_tiny_model import build_tiny_model

    built: dict[str, Path] = {}

    def get(family: str) -> Path:
        if family not in built:
            built[family] = build_tiny_model(family, tmp_path_factory.mktemp(family))
        return built[family]

    return get


@pytest.fixture(scope="session")
def tiny_target(tiny_model_dir):
    """family -> loaded VisionTarget (float32; CPU, or HSD_TEST_DEVICE), loaded once per session."""
    from hsd_cli.targets.runtime.registry import load_target

    loaded = {}

    def get(family: str):
        if family not in loaded:
            # graphs=False: on a GPU too these tests run transformers' cache (HFSession); the static
            # engine has its own (tests/targets/test_static_*.py).
            loaded[family] = load_target(str(tiny_model_dir(family)), TEST_DEVICE, "fp32", graphs=False)
            # Trees are sized by the cost curve; a measured one depends on the machine's load
            # while the tests run, so the tests size them by a fixed one (cost is a cached_property).
            loaded[family].__dict__["cost"] = FIXED_COST
        return loaded[family]

    return get


@pytest.fixture(autouse=True)
def one_torch_thread():
    """Every test starts on one torch thread: `hsd bench` run in-process pins torch to every core
    (bench/main.py), and left so, every later tiny-model test ran ~10x slower on a busy machine."""
    yield
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
