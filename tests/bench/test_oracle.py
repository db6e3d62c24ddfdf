"""Oracle target: forced tokens come out, through AR, speculative decoding and row selection."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from decoding import ar_decode, run_ar, run_hsd, run_page, spec_decode
from fakes import lined_image

from hsd_cli.bench.oracle import OracleSession, OracleTarget, force_logits
from hsd_cli.config import RunConfig, SpecConfig
from hsd_cli.datatypes import PageImage, Region, RegionKind
from hsd_cli.methods.crops import crop_region
from hsd_cli.spec.row import DecodeOptions
from hsd_cli.spec.stop import StopRule

VOCAB, EOS = 50, 49
STOP = StopRule(frozenset({EOS}), 100)


class RandomSession:
    """Real-shaped but meaningless logits: whatever comes out is the oracle's doing."""

    priced = True

    def __init__(self, rows: int):
        self.rows = rows
        self.forward_calls = 0
        self.gen = torch.Generator().manual_seed(0)

    def step(self, ids, ancestry, depth):
        assert ids.shape[0] == self.rows
        self.forward_calls += 1
        return torch.randn(*ids.shape, VOCAB, generator=self.gen)

    def commit(self, keep):
        assert len(keep) == self.rows

    def select_rows(self, rows):
        self.rows = len(rows)

    def slots(self):
        return 0


class LoudSession(RandomSession):
    """Logits as large as a real model's (tens): a penalty moves them by more than a unit margin."""

    def step(self, ids, ancestry, depth):
        return super().step(ids, ancestry, depth) * 20


def _session(refs):
    oracle = OracleSession(RandomSession(len(refs)), refs, EOS)
    return oracle, oracle.force_first(torch.randn(len(refs), VOCAB))


REFS = [[3, 4, 5, 6, 7, 8, 9, 10], [11, 12], [1, 2, 3, 1, 2, 3, 4]]


def test_force_logits_makes_the_wanted_token_the_argmax():
    """Every row's argmax becomes the wanted token, whatever the logits were."""
    logits = torch.tensor([[5.0, 1.0, 0.0], [0.0, 0.0, 9.0]])
    assert force_logits(logits, torch.tensor([2, 1])).argmax(-1).tolist() == [2, 1]


def test_ar_with_the_oracle_returns_exactly_the_reference():
    """AR on random logits: each row writes its reference, then EOS; rows finish at different times."""
    session, first = _session(REFS)
    rows = ar_decode(session, first, StopRule(frozenset({EOS}), 100))
    assert [r.tokens for r in rows] == [ref + [EOS] for ref in REFS]


def test_spec_decode_with_the_oracle_accepts_the_reference_drafts():
    """Drafts equal to the reference are accepted in long runs; the output is still the reference."""
    session, first = _session(REFS)
    cfg = SpecConfig(window=1, max_depth=4, max_new_tokens=100)
    rows = spec_decode(session, first, [[ref] for ref in REFS], cfg, StopRule(frozenset({EOS}), 100))
    assert [r.tokens for r in rows] == [ref + [EOS] for ref in REFS]
    assert rows[0].stats.accepted >= 4  # not one token per step
    assert session.forward_calls < len(REFS[0])


@pytest.mark.parametrize("penalty", [1.05, 1.3, 0.8])
def test_the_oracle_pays_the_repetition_penalty_and_still_writes_the_reference(penalty):
    """The target's penalty is applied to the forced logits (a benchmark pays its cost), and every
    reference token survives it, though the references repeat and the prompts hold their tokens
    (a seen token's logit falls below an unseen one's by more than the margin)."""
    refs = [[3, 4, 3, 4, 3, 4, 5], [7, 7, 7, 8], [1, 2, 3, 1, 2, 3]]
    oracle = OracleSession(LoudSession(len(refs)), refs, EOS, penalty)
    first = oracle.force_first(torch.randn(len(refs), VOCAB) * 20)
    opts = DecodeOptions(penalty=penalty, prompts=refs)  # each reference token seen, the rest not
    rows = spec_decode(oracle, first, [[r] for r in refs], SpecConfig(window=1, max_depth=4), STOP, opts)
    assert [r.tokens for r in rows] == [ref + [EOS] for ref in refs]


def test_budget_cuts_the_reference():
    """A reference longer than the budget stops at the budget (no EOS)."""
    session, first = _session([list(range(20))])
    (row,) = ar_decode(session, first, StopRule(frozenset({EOS}), 5))
    assert row.tokens == [0, 1, 2, 3, 4]


def _page() -> PageImage:
    return PageImage(Path("oracle.png"), 0, lined_image(), 72)


@pytest.mark.slow
def test_oracle_on_a_real_tiny_model_reproduces_the_reference(tiny_target):
    """Real forward passes, forced choice: ar, page and hsd all write the reference tokens."""
    target = OracleTarget(tiny_target("qwen2_5_vl"))
    page = _page()
    text = "# Title\n\nLine 0 of the page. Line 1 of the page.\n\nLine 2 of the page."
    ref = target.encode(text)
    target.expect(page.image, ref)
    regions = [
        Region((10, 10, 300, 60), RegionKind.TEXT, 0, "Line 0 of the page."),
        Region((10, 110, 300, 160), RegionKind.TEXT, 1, "Line 2 of the page."),
    ]
    for region in regions:
        target.expect(crop_region(page.image, region.bbox), target.encode(region.text))
    spec = SpecConfig(max_new_tokens=200)
    want = ref + [target.eos]
    assert run_ar(target, page, spec).tokens == want
    assert run_page(target, page, [ref[5:], ref[:9]], spec).tokens == want
    cfg = RunConfig(inputs=(), out_dir=Path("."), spec=spec)
    drafts = [[target.encode(r.text)] for r in regions]
    out = run_hsd(target, page, regions, drafts, cfg)
    assert out.tokens == want
    assert out.page.steps < len(want) - 1  # the Stage-1 drafts were accepted


def test_unknown_image_is_a_clear_error(tiny_target):
    """An image the oracle has no reference for raises, naming its size."""
    target = OracleTarget(tiny_target("qwen2_5_vl"))
    with pytest.raises(KeyError, match="320x240"):
        target.prefill([_page().image], "x")
