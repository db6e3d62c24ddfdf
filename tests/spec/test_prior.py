"""A row's acceptance prior: given per decode (DecodeOptions.prior), corrected by what it observes."""

from __future__ import annotations

from fake_target import BUSY, PROMPT, FakeSession, SizedSession, reference

from hsd_cli.config import SpecConfig
from hsd_cli.spec.budget import DEFAULT_PRIOR, PRIOR_WEIGHT, AcceptPrior, AcceptStats
from hsd_cli.spec.decode import DecodeOptions, SpecStepper
from hsd_cli.spec.propose import EXPLORE_EVERY
from hsd_cli.spec.stop import StopRule
from hsd_cli.spec.tree import build_tree

HIGH = AcceptPrior((0.45, 0.3, 0.55, 0.85), 0.9)  # made up: drafts believed near exact


def test_no_prior_is_todays_prior():
    stats = AcceptStats()
    assert stats.prior == DEFAULT_PRIOR == AcceptPrior((0.3, 0.2, 0.4, 0.6), 0.8)
    assert [stats.p_first(k) for k in range(5)] == [0.3, 0.2, 0.4, 0.6, 0.6] and stats.p_cont() == 0.8


def test_a_prior_weighs_as_a_few_observations():
    stats = AcceptStats(prior=HIGH)
    assert (stats.p_first(3), stats.p_cont()) == (0.85, 0.9)
    tree = build_tree(7, [[1, 2, 3]])
    for _ in range(4):
        stats.observe(tree, 3, [0])  # four first tokens rejected after a full window
    assert stats.p_first(3) == PRIOR_WEIGHT * 0.85 / (4 + PRIOR_WEIGHT)
    stats.observe(tree, 3, [0, 1, 2, 3])  # one chain accepted whole: two continuations more
    assert stats.p_cont() == (2 + PRIOR_WEIGHT * 0.9) / (2 + PRIOR_WEIGHT)


def _first_sizes(prior, steps):
    ref = reference(100)
    s = SizedSession(PROMPT)
    rule = StopRule(frozenset(), 100)
    stepper = SpecStepper()
    stepper.add(
        s, s.first_logits(), [[ref]], SpecConfig(max_new_tokens=100), rule, DecodeOptions(cost=BUSY, prior=prior)
    )
    for _ in range(steps):
        stepper.step()
    return s.sizes


def test_the_decode_sizes_trees_by_the_given_prior():
    """The busy curve: today's prior keeps exact drafts at the root, a near-exact prior verifies trees."""
    before = EXPLORE_EVERY  # steps before any exploration could start
    assert _first_sizes(None, before) == [1] * before
    assert _first_sizes(DEFAULT_PRIOR, before) == [1] * before
    assert max(_first_sizes(HIGH, before)) > 1


def test_every_row_of_a_batch_gets_the_prior():
    s = FakeSession([[1, 2], [3, 4]])
    stepper = SpecStepper()
    stepper.add(s, s.first_logits(), [[], []], SpecConfig(), StopRule(frozenset(), 5), DecodeOptions(prior=HIGH))
    assert [r.accept.prior for r in stepper.rows.values()] == [HIGH, HIGH]
