"""Where and when a benchmark ran: CPU model, cores, GPU, library versions, date, and how busy
other processes kept the machine meanwhile."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
from pathlib import Path

from hsd_cli.targets.runtime import ragged
from hsd_cli.targets.runtime.load import LoadClock, disturbed

CHECKOUT = Path(__file__).resolve().parents[2]  # the repository hsd runs from, if it runs from one


def code_commit(checkout: Path = CHECKOUT) -> str | None:
    """git's HEAD (short) of the checkout hsd runs from; None for an installed package (whose
    folders may sit inside somebody else's repository) or where git is missing."""
    if not (checkout / ".git").exists():
        return None
    try:
        git = subprocess.run(
            ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return git.stdout.strip() or None


def machine_info(device: str = "cpu", clock: LoadClock | None = None) -> dict[str, str | int | float]:
    import torch
    import transformers

    from hsd_cli.targets.runtime.costs import cpu_isa

    info: dict[str, str | int | float] = {
        "cpu": _cpu_model(),
        "cpu_isa": cpu_isa(),
        "cores": os.cpu_count() or 0,
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if device.startswith("cuda") and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(torch.device(device))
    if device.startswith("cuda"):  # the static engine's attention (HSD_ATTENTION): a run's figures depend on it
        info["attention"] = "ragged" if ragged.wanted() else "dense"
    busy = clock.others_busy() if clock is not None else None
    if busy is not None:
        info["other_cores_busy"] = round(busy, 2)
    return info


def machine_line(info: dict[str, str | int | float]) -> str:
    """One line for a results file."""
    gpu = f", GPU {info['gpu']}" if "gpu" in info else ""
    isa = f" ({info['cpu_isa']})" if "cpu_isa" in info else ""  # runs recorded before it was
    line = (
        f"{info['cpu']}{isa}, {info['cores']} cores ({info['torch_threads']} torch threads){gpu}; "
        f"torch {info['torch']}, transformers {info['transformers']}, Python {info['python']}; "
        f"{info['date']}"
    )
    warning = busy_warning(float(info.get("other_cores_busy", 0.0)), int(info["cores"]))
    return f"{line}; {warning}" if warning else line


def busy_warning(busy: float | None, cores: int) -> str:
    """A warning when other processes kept `busy` cores busy during the run; "" when quiet."""
    if not disturbed(busy, cores):
        return ""
    return (
        f"other processes (or, as steal time, other virtual machines) kept {busy:.2f} of {cores} cores "
        "busy during the run: its timings are disturbed"
    )


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()
