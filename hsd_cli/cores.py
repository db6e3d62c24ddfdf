"""How hsd shares the host's cores: the CPUs a process may use, the drafting workers it starts by
default and their OCR threads, the threads that make a model's prefill inputs. Pages, drafts, the
driver and the pipeline all ask it, so it sits beside config.py."""

from __future__ import annotations

import os

MAX_DRAFT_WORKERS = 8  # each holds its own layout and OCR engines
MAX_INPUT_THREADS = 4  # enough for an H200's prefills (0.15 s of processor work a page against ~0.04)
# Beside a target on a GPU, this many drafting workers or more draft on the host's cores, not the GPU.
# Measured on the H200 host (16 Intel cores, benchmarks/results/draft-rate-h200.json): 15 workers with
# ONNX Runtime drafted 5.6 pages/s, 15 on the GPU 5.0 and 4 on the GPU 3.3 (1.5 GB of GPU memory
# each); at batch 32 even 4 CPU workers gave `auto` 142 pages/min against 4 GPU workers' 135, whose
# models slowed the target's prefills (RESULTS.md).
CPU_DRAFTING = 8
MAX_BESIDE_GPU = 15
WORKER_GIB = 1.0  # a drafting worker's memory: 0.69 GiB resident after a dev page image (this CPU)


def input_threads() -> int:
    """Threads making prefill inputs beside a model on an accelerator (driver/ahead.py): a quarter
    of the cores, the rest left to drafting and the model's own process."""
    return max(1, min(MAX_INPUT_THREADS, allowed_cpus() // 4))


def default_workers(model: bool = True, accelerator: bool = False) -> int:
    """Prepare processes by default. Beside a model one core stays with it and at most 4 prepare
    pages; beside a model on a GPU, a host with CPU_DRAFTING cores or more left over (after the
    model's process and its input threads), and memory for their workers, drafts on all of them;
    with the draft pipeline alone the run's own process only writes, so every core drafts."""
    if not model:
        return max(1, min(MAX_DRAFT_WORKERS, allowed_cpus()))
    if accelerator:
        left = min(allowed_cpus() - 1 - input_threads(), int(available_gib() / WORKER_GIB))
        if left >= CPU_DRAFTING:
            return min(MAX_BESIDE_GPU, left)
    return max(1, min(4, allowed_cpus() - 1))


def available_gib() -> float:
    """Memory the host can still give (GiB): a large host's many drafting workers must fit in it."""
    import psutil

    return psutil.virtual_memory().available / 2**30


def allowed_cpus() -> int:
    """The CPUs this process may run on (taskset, a cpuset; the machine's where the OS does not say)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux: no affinity to read
        return os.cpu_count() or 1


def worker_threads(workers: int) -> int:
    """OCR threads of each of `workers` processes: the CPUs this process may use, less one for the
    model's process, shared out (ONNX Runtime would give each of them every core)."""
    return max(1, (allowed_cpus() - 1) // workers)
