"""How busy other processes kept the machine during a run, and the warning the results carry."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from hsd_cli.bench.machine import busy_warning, machine_line
from hsd_cli.targets.runtime import load
from hsd_cli.targets.runtime.load import LoadClock, busy_limit

INFO = {"cpu": "X", "cores": 2, "torch_threads": 1, "torch": "t", "transformers": "tf", "python": "3", "date": "d"}


def _clock(monkeypatch: pytest.MonkeyPatch, machine_s: float | None, own_s: float, elapsed: float) -> LoadClock:
    """A clock started `elapsed` seconds ago, since when the machine and this process used the given CPU."""
    monkeypatch.setattr(load, "machine_cpu", lambda: machine_s)
    monkeypatch.setattr(load, "own_cpu", lambda: own_s)
    return LoadClock(time.perf_counter() - elapsed, 0.0, 0.0)


def test_other_processes_cpu_is_the_machines_less_our_own(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _clock(monkeypatch, machine_s=30.0, own_s=10.0, elapsed=20.0)
    assert clock.others_busy() == pytest.approx(1.0, rel=0.01)
    assert not clock.quiet(cores=2)
    assert clock.quiet(cores=64)  # one core of a big shared server is not a disturbance


def test_our_own_work_alone_is_a_quiet_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _clock(monkeypatch, machine_s=10.0, own_s=10.0, elapsed=20.0)
    assert clock.others_busy() == 0.0 and clock.quiet(cores=2)


def test_where_the_os_says_nothing_the_machine_counts_as_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = _clock(monkeypatch, machine_s=None, own_s=1.0, elapsed=1.0)
    assert clock.others_busy() is None and clock.quiet(cores=2)


def test_a_busy_machine_is_named_in_the_results_line() -> None:
    assert "disturbed" in machine_line({**INFO, "other_cores_busy": 1.0})
    assert "disturbed" not in machine_line({**INFO, "other_cores_busy": busy_limit(2) / 2})
    assert "disturbed" not in machine_line(INFO)  # runs recorded before the figure existed
    assert busy_warning(None, 2) == ""


def test_the_results_line_names_the_cpus_vector_instructions() -> None:
    """Hosts of one CPU name can differ in them, and wide tree steps with them."""
    assert machine_line({**INFO, "cpu_isa": "AVX2"}).startswith("X (AVX2), 2 cores")
    assert machine_line(INFO).startswith("X, 2 cores")  # runs recorded before it was


def test_the_real_counters_never_charge_our_own_work_to_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine that ran nothing but our busy loop: the loop, timed by the real counters, is ours."""
    import psutil

    # An earlier test's worker that exits between the two readings of one others_busy() would
    # leave one of them and count as another process's work (seen once in a full run).
    monkeypatch.setattr(psutil.Process, "children", lambda self, recursive=False: [])
    real = load.own_cpu
    monkeypatch.setattr(load, "machine_cpu", lambda: real() + 1000.0)
    clock = LoadClock.start()
    end = time.perf_counter() + 0.3
    while time.perf_counter() < end:
        pass
    assert clock.others_busy() == pytest.approx(0.0, abs=0.05)


def test_our_prepare_workers_count_as_our_own_work(monkeypatch: pytest.MonkeyPatch) -> None:
    """A running child (an `hsd convert --workers` process) is ours, not a neighbour's; one that
    is gone since it was listed is skipped."""
    import psutil

    class Child:
        def __init__(self, user: float | None) -> None:
            self.user = user

        def cpu_times(self):
            if self.user is None:
                raise psutil.NoSuchProcess(1)
            return SimpleNamespace(user=self.user, system=1.0)

    class Me:
        kids: list[Child] = []

        def children(self, recursive: bool) -> list[Child]:
            assert recursive  # workers' own children too
            return self.kids

    monkeypatch.setattr(psutil, "Process", Me)  # real children (an earlier test's workers) would count
    alone = load.own_cpu()
    Me.kids = [Child(2.0), Child(None)]
    assert load.own_cpu() == pytest.approx(alone + 3.0, abs=0.05)


def test_a_run_names_its_code_only_from_its_own_checkout(tmp_path) -> None:
    """The repository's HEAD where hsd runs from a checkout; none for an installed package (a
    folder without .git), even inside somebody else's repository."""
    import subprocess

    from hsd_cli.bench.machine import CHECKOUT, code_commit
    from hsd_cli.bench.report import write_outputs

    head = subprocess.run(["git", "-C", str(CHECKOUT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    assert code_commit() == (head.stdout.strip() or None)
    assert code_commit(tmp_path) is None
    write_outputs(tmp_path / "run.json", None, "x", "", {"command": "hsd bench"})
    assert json.loads((tmp_path / "run.json").read_text())["commit"] == code_commit()


def test_a_gpu_run_says_which_attention_its_static_engine_took(monkeypatch: pytest.MonkeyPatch) -> None:
    from hsd_cli.bench.machine import machine_info

    assert "attention" not in machine_info("cpu")  # the CPU decodes on transformers' cache
    monkeypatch.setenv("HSD_ATTENTION", "ragged")
    assert machine_info("cuda")["attention"] == "ragged"
    monkeypatch.delenv("HSD_ATTENTION")
    assert machine_info("cuda")["attention"] == "dense"
