"""Provenance: every accepted token names the draft position it was taken from (toy target)."""

import random

import pytest
from decoding import ar_decode, spec_decode
from fake_target import EOS, FakeSession
from test_decode import PROMPTS, _random_drafts

from hsd_cli.config import SpecConfig
from hsd_cli.spec.align import MODEL
from hsd_cli.spec.decode import DecodeOptions
from hsd_cli.spec.stop import StopRule


@pytest.mark.parametrize("seed", range(30))
def test_origins_point_at_the_accepted_token_in_its_draft(seed):
    """origins[i] == (d, j) means drafts[d][j] is tokens[i]; provenance leaves the tokens as AR's."""
    rng = random.Random(seed)
    rule = StopRule(frozenset({EOS}), max_new_tokens=60, repeat_guard=0)
    s = FakeSession(PROMPTS)
    ref = ar_decode(s, s.first_logits(), rule)
    drafts = [[[]] + _random_drafts(r.tokens, rng) for r in ref]  # an empty draft keeps its index
    cfg = SpecConfig(max_new_tokens=60, max_candidates=rng.randint(1, 6))
    s = FakeSession(PROMPTS)
    opts = DecodeOptions(starts=rng.random() < 0.5, boundary_ids=frozenset({0}))
    got = spec_decode(s, s.first_logits(), drafts, cfg, rule, opts)
    for row, row_drafts, want in zip(got, drafts, ref, strict=True):
        assert row.tokens == want.tokens and len(row.origins) == len(row.tokens)
        for tok, (d, j) in zip(row.tokens, row.origins, strict=True):
            assert (d, j) == MODEL or row_drafts[d][j] == tok
        # Accepted draft tokens are counted per step; the stop rule may drop a step's tail.
        assert sum(o != MODEL for o in row.origins) <= row.stats.accepted


def test_exact_draft_is_credited_to_itself():
    """A draft equal to the output: every token after the first comes from it, save bonus tokens."""
    rule = StopRule(frozenset({EOS}), max_new_tokens=60, repeat_guard=0)
    s = FakeSession(PROMPTS[:1])
    ref = ar_decode(s, s.first_logits(), rule)[0].tokens
    s = FakeSession(PROMPTS[:1])
    row = spec_decode(s, s.first_logits(), [[[9, 9, 9], list(ref)]], SpecConfig(max_new_tokens=60), rule)[0]
    from_draft = [j for d, j in row.origins if d == 1]
    assert from_draft == sorted(from_draft) and len(from_draft) > len(ref) // 2
    assert all(ref[j] == row.tokens[i] for i, (d, j) in enumerate(row.origins) if d == 1)
    assert row.origins[0] == MODEL  # the prefill's token is the model's
