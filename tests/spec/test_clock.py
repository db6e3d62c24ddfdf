"""PhaseClock: each lap charges the time since the last one to its phase, summed over passes."""

from __future__ import annotations

from hsd_cli.spec.clock import PhaseClock


def test_laps_charge_the_time_since_the_last_lap():
    now = iter([0.0, 1.0, 3.0, 3.5, 10.0, 10.25, 12.0])
    clock = PhaseClock(lambda: next(now))  # built at 0.0
    clock.lap("propose")  # 1.0
    clock.lap("commit")  # 3.0
    clock.start()  # 3.5: the half second before is nobody's
    clock.lap("propose")  # 10.0
    assert dict(clock.seconds) == {"propose": 1.0 + 6.5, "commit": 2.0}
    clock.reset()  # 10.25
    clock.lap("commit")  # 12.0
    assert dict(clock.seconds) == {"commit": 1.75}
