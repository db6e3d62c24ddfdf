"""Loop repair on literal token lists: where a loop began, where the draft resumes, the splice."""

from __future__ import annotations

import random

import pytest

from hsd_cli.spec.loop import Anchor, Loop, find_anchor, find_loop, repair_loop, splice
from hsd_cli.spec.stop import StopReason, StopRule

SPAN = 16  # the repeat guard's span in these tests: periods up to 2 tokens


def test_find_loop_traces_the_loop_back_to_its_first_period():
    tokens = [1, 2, 3, 4] + [7, 8] * 10
    assert find_loop(tokens, SPAN) == Loop(start=4, period=2)
    assert tokens[: find_loop(tokens, SPAN).keep] == [1, 2, 3, 4, 7, 8]


def test_find_loop_with_a_partial_last_period_and_a_lead_in():
    # ... 5 8 7 8 7 ... : the 8 before the first 7 already belongs to the loop
    tokens = [1, 5, 8] + [7, 8] * 9 + [7]
    loop = find_loop(tokens, SPAN)
    assert loop == Loop(start=2, period=2)
    assert tokens[: loop.keep] == [1, 5, 8, 7]


def test_find_loop_single_token_and_too_short():
    assert find_loop([4, 5] + [0] * 17, SPAN) == Loop(start=2, period=1)
    assert find_loop([0] * SPAN, SPAN) is None  # the guard needs span + 1 tokens
    assert find_loop(list(range(40)), SPAN) is None


@pytest.mark.parametrize("seed", range(30))
def test_find_loop_agrees_with_the_repeat_guard(seed):
    """A loop is found exactly when the guard stops the row (same span, same periods)."""
    rng = random.Random(seed)
    body = [rng.randrange(3) for _ in range(rng.randint(1, 3))]
    tokens = [rng.randrange(3) for _ in range(rng.randint(0, 10))] + body * rng.randint(1, 14)
    rule = StopRule(frozenset(), max_new_tokens=10_000, repeat_guard=SPAN)
    assert (find_loop(tokens, SPAN) is not None) == (rule.check(tokens) is StopReason.REPEAT)


def test_find_anchor_prefers_the_longest_shared_tail():
    kept = [9, 1, 2, 3]
    drafts = [[5, 2, 3, 6, 6], [1, 2, 3, 4, 4]]  # "2 3" in both; "1 2 3" only in the second
    assert find_anchor(kept, drafts, ordered=True, min_match=2) == Anchor(draft=1, pos=3, length=3)


def test_find_anchor_ties_go_to_the_position_nearest_the_output_length():
    kept = [8] * 10 + [4, 5, 6]  # 13 tokens out: the row is about 13 tokens into its draft
    draft = [4, 5, 6, 1] + [0] * 6 + [4, 5, 6, 2, 3]
    assert find_anchor(kept, [draft], ordered=True) == Anchor(draft=0, pos=13, length=3)


def test_find_anchor_needs_min_match_tokens():
    assert find_anchor([1, 2, 3], [[7, 2, 3, 8]], ordered=True) is None
    assert find_anchor([1, 2, 3], [[7, 2, 3, 8]], ordered=True, min_match=2) == Anchor(0, 3, 2)


def test_find_anchor_ordered_drafts_count_positions_across_drafts():
    kept = [1] * 8 + [7, 8, 9]  # 11 tokens out
    drafts = [[7, 8, 9, 0], [5] * 4, [7, 8, 9, 3]]  # second "7 8 9" ends at 4 + 4 + 3 = 11
    assert find_anchor(kept, drafts, ordered=True) == Anchor(draft=2, pos=3, length=3)
    # as alternatives both matches end at position 3: the first wins the tie
    assert find_anchor(kept, drafts, ordered=False) == Anchor(draft=0, pos=3, length=3)


def test_splice_ordered_appends_later_drafts_with_the_separator():
    drafts = [[1, 2, 3, 4], [], [5, 6]]
    assert splice([9, 2, 3], drafts, Anchor(0, 3, 2), ordered=True, sep=[0, 0]) == [9, 2, 3, 4, 0, 0, 5, 6]
    assert splice([9, 2, 3], drafts, Anchor(0, 3, 2), ordered=False) == [9, 2, 3, 4]


def test_repair_loop_cuts_the_loop_and_resumes_the_draft():
    draft = [10, 11, 12, 13, 20, 21, 22, 30, 31, 32]
    looping = [10, 11, 12, 13, 20, 21, 22] + [21, 22] * 8  # stuck on "21 22" where the draft goes on
    fixed = repair_loop(looping, [draft], SPAN, ordered=True)
    assert fixed is not None and fixed.loop == Loop(start=5, period=2)
    assert fixed.tokens == draft and fixed.anchor == Anchor(0, 7, 7)


def test_repair_loop_without_a_matching_draft_only_cuts():
    fixed = repair_loop([1, 2, 3] + [4, 5] * 9, [[7, 8, 9]], SPAN, ordered=True)
    assert fixed is not None and fixed.anchor is None and fixed.tokens == [1, 2, 3, 4, 5]


def test_repair_loop_leaves_rows_that_do_not_loop():
    assert repair_loop(list(range(50)), [list(range(60))], SPAN, ordered=True) is None
