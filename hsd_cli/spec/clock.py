"""Where a verification pass spends its time: seconds per phase, summed over the passes.

The loop (decode.SpecStepper) and the proposer lap the clock after each phase; on a GPU a lap
reads the host's time only (kernels run on), so the phases say what the host spends, and the
one device read of a pass (`readback`) absorbs the device's. benchmarks/host_step.py reads it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable


class PhaseClock:
    """Seconds per phase name, summed; `lap(name)` charges the time since the last lap to `name`.

    `timer` is wall-clock time by default; a benchmark on a busy machine passes time.thread_time
    (this thread's CPU seconds, with torch on one thread: what the pass itself computed)."""

    __slots__ = ("seconds", "_last", "_timer")

    def __init__(self, timer: Callable[[], float] = time.perf_counter) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._timer = timer
        self._last = timer()

    def start(self) -> None:
        """Time from here on (what ran since the last lap is nobody's)."""
        self._last = self._timer()

    def lap(self, phase: str) -> None:
        now = self._timer()
        self.seconds[phase] += now - self._last
        self._last = now

    def reset(self) -> None:
        self.seconds.clear()
        self.start()
