"""How busy other processes keep this machine: the whole machine's CPU time less our own
(this process and its children: `hsd convert`'s prepare workers are part of the run).

A virtual machine's cores may share physical cores, so a neighbour's work slows ours: on the
2-core development machine a full-size tree step ran 2x slower while OCR ran on the other core
(a one-token step only 10% slower). Timings taken then are not the machine's.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass

# Other processes holding this share of the machine's cores on average disturb a measurement
# (a quarter of a core on the 2-core development machine; a shared server may run others beside us).
BUSY_SHARE = 0.125


def busy_limit(cores: int | None = None) -> float:
    """Cores that other processes may keep busy before a measurement counts as disturbed."""
    return BUSY_SHARE * (cores or os.cpu_count() or 1)


def disturbed(busy: float | None, cores: int | None = None) -> bool:
    """Other processes kept `busy` cores busy: more than a measurement on `cores` cores bears."""
    return busy is not None and busy >= busy_limit(cores)


@dataclass(frozen=True, slots=True)
class LoadClock:
    """When a measurement started: wall time, this process's CPU time, the machine's busy CPU time."""

    wall: float
    own_cpu: float
    machine_cpu: float | None  # None where the OS does not say (no /proc/stat)

    @classmethod
    def start(cls) -> LoadClock:
        return cls(time.perf_counter(), own_cpu(), machine_cpu())

    def elapsed(self) -> float:
        return time.perf_counter() - self.wall

    def others_busy(self) -> float | None:
        """Cores that other processes kept busy on average since the start; None where unknown."""
        now = machine_cpu()
        if now is None or self.machine_cpu is None:
            return None
        others = (now - self.machine_cpu) - (own_cpu() - self.own_cpu)
        return max(0.0, others / max(self.elapsed(), 1e-9))

    def quiet(self, cores: int | None = None) -> bool:
        """No other process disturbed the measurement (as far as the OS tells)."""
        return not disturbed(self.others_busy(), cores)


def own_cpu() -> float:
    """CPU seconds of this process and its children, running (prepare workers) or finished."""
    import psutil

    t = os.times()
    total = t.user + t.system + t.children_user + t.children_system
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.Error):  # gone since it was listed
            times = child.cpu_times()
            total += times.user + times.system
    return total


def machine_cpu() -> float | None:
    """Busy CPU seconds of the whole machine since boot (idle and I/O wait left out; steal, the
    time a virtual machine's host gave its cores to other machines, counted as busy)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
