"""Where and when a benchmark ran: CPU model, cores, GPU, library versions, date."""

from __future__ import annotations

import datetime
import os
import platform


def machine_info(device: str = "cpu") -> dict[str, str | int]:
    import torch
    import transformers

    info: dict[str, str | int] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count() or 0,
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }
    if device.startswith("cuda") and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(torch.device(device))
    return info


def machine_line(info: dict[str, str | int]) -> str:
    """One line for a results file."""
    gpu = f", GPU {info['gpu']}" if "gpu" in info else ""
    return (
        f"{info['cpu']}, {info['cores']} cores ({info['torch_threads']} torch threads){gpu}; "
        f"torch {info['torch']}, transformers {info['transformers']}, Python {info['python']}; "
        f"{info['date']}"
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
