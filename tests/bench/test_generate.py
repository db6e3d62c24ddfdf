"""bench/generate.py: transformers' own `generate` as baselines beside hsd's methods (lookup, hf-static)."""

from __future__ import annotations

from pathlib import Path

import pytest
from decoding import run_ar
from fakes import lined_image

from hsd_cli.bench.config import EXTERNAL, BenchConfig
from hsd_cli.bench.generate import run_generate
from hsd_cli.config import SpecConfig
from hsd_cli.datatypes import PageImage

PAGE = PageImage(Path("page.png"), 0, lined_image(), 72)


def test_each_external_method_passes_its_own_generate_options():
    cfg = BenchConfig(inputs=(Path("x.pdf"),), lookup_tokens=7)
    assert cfg.generate_options("lookup") == {"prompt_lookup_num_tokens": 7}
    assert cfg.generate_options("hf-static") == {"cache_implementation": "static"}


@pytest.mark.parametrize("method", sorted(EXTERNAL))
def test_greedy_generate_writes_what_ar_writes(method, tiny_target):
    """Greedy decoding through transformers' own loop, on its static cache or with prompt lookup,
    gives hsd's `ar` tokens: the baseline measures the same output."""
    target = tiny_target("qwen2_5_vl")
    options = BenchConfig(inputs=(Path("x.pdf"),)).generate_options(method)
    run = run_generate(method, target, PAGE, 12, options)
    assert not run.error and run.method == method
    assert run.token_ids == list(run_ar(target, PAGE, SpecConfig(max_new_tokens=12)).tokens)
    assert run.steps == run.seq_steps - 1 and run.t_total >= run.t_decode > 0


def test_a_crash_is_the_method_s_reported_error(tiny_target):
    run = run_generate("hf-static", tiny_target("qwen2_5_vl"), PAGE, 8, {"cache_implementation": "no-such-cache"})
    assert run.error and run.method == "hf-static"
