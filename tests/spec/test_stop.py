"""Stopping rules: EOS, token budget, repetition guard."""

from hsd_cli.spec.stop import StopReason, StopRule


def test_eos_stops_first():
    rule = StopRule(frozenset({9}), max_new_tokens=2)
    assert rule.check([1, 9]) is StopReason.EOS  # Not BUDGET: EOS wins at the last slot


def test_budget():
    rule = StopRule(frozenset({9}), max_new_tokens=3)
    assert rule.check([1, 2]) is StopReason.NONE
    assert rule.check([1, 2, 3]) is StopReason.BUDGET


def test_repeat_guard_catches_a_loop():
    rule = StopRule(frozenset(), max_new_tokens=1000, repeat_guard=24)
    loop = [5, 6, 7] * 10  # period 3 <= 24 // 8
    assert rule.check([1, 2] + loop[:10]) is StopReason.NONE
    assert rule.check([1, 2] + loop) is StopReason.REPEAT


def test_repeat_guard_ignores_long_periods():
    rule = StopRule(frozenset(), max_new_tokens=1000, repeat_guard=16)
    period = list(range(20))  # period 20 > 16 // 8
    assert rule.check(period * 3) is StopReason.NONE


def test_repeat_guard_off():
    assert StopRule(frozenset(), 1000).check([1] * 500) is StopReason.NONE
