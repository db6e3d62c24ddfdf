"""Frozen configuration records, validated at construction."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

METHODS = ("auto", "hsd", "page", "ar", "draft")
DRAFT_SOURCES = ("auto", "text", "ocr")
ON_LOOP = ("stop", "draft")
ENGINES = ("local", "ray")
FORMATS = ("md", "json")
DEFAULT_MODEL = "tencent/HunyuanOCR"


@dataclass(frozen=True, slots=True)
class SpecConfig:
    """Decoupled speculative verification settings (names follow the HSD paper, sec. 3.2)."""

    tau: float = 1.0  # acceptance threshold; 1.0 = exact greedy match (lossless)
    window: int = 3  # n: reference-window length
    min_window: int = 1  # fall back to shorter windows down to this length when n finds nothing
    # Longest candidate continuation, in tokens. 48 over 24: fewer steps on every page of the
    # full-size ablation (RESULTS.md, ablation-hunyuan_vl-192); cost-sized trees cut what a step
    # cannot afford, so a deeper candidate only costs where the device verifies it cheaply.
    max_depth: int = 48
    max_candidates: int = 8  # candidates per step (tree width)
    max_new_tokens: int = 2048  # per page / per region token budget
    repeat_guard: int = 512  # stop when the last this-many tokens loop with a short period (0 = off)
    max_nodes: int = 64  # node budget: most draft tokens in one row's tree per step
    cost_aware: bool = True  # size each tree by the device's measured forward cost (else: up to max_nodes)
    # A row the repeat guard stops: "stop" keeps it as is (truncated); "draft" cuts the loop after
    # its first period and appends the rest of the row's draft (spec/loop.py).
    on_loop: str = "stop"
    region_starts: bool = True  # stage 2: offer region beginnings as candidates
    stage1_batch: int = 16  # most region crops verified in one batch

    def __post_init__(self) -> None:
        if not 0.0 < self.tau <= 1.0:
            raise ValueError(f"tau must be in (0, 1], got {self.tau}")
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window}")
        if not 1 <= self.min_window <= self.window:
            raise ValueError(f"min_window must be in [1, window], got {self.min_window}")
        if self.max_depth < 1 or self.max_candidates < 1 or self.max_nodes < 1:
            raise ValueError("max_depth, max_candidates and max_nodes must be >= 1")
        if self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be >= 1, got {self.max_new_tokens}")
        if self.stage1_batch < 1:
            raise ValueError(f"stage1_batch must be >= 1, got {self.stage1_batch}")
        if self.on_loop not in ON_LOOP:
            raise ValueError(f"on_loop must be one of {ON_LOOP}, got {self.on_loop!r}")


@dataclass(frozen=True, slots=True)
class RayConfig:
    """`--engine ray`: where the cluster is and how its stages scale (distributed/)."""

    address: str | None = None  # None: start a local Ray instance; else join this cluster
    verify_actors: int | None = None  # loaded targets; None: one per GPU of the cluster, else 1
    batch: int = 4  # pages per prepare task (a page group); long documents split into many
    retries: int = 2  # a killed verify worker is restarted and its pages retried this often

    def __post_init__(self) -> None:
        if self.verify_actors is not None and self.verify_actors < 1:
            raise ValueError(f"ray verify actors must be >= 1, got {self.verify_actors}")
        if self.batch < 1 or self.retries < 0:
            raise ValueError("ray batch must be >= 1 and retries >= 0")


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Everything one `hsd convert` run needs; built once by the CLI."""

    inputs: tuple[Path, ...]
    out_dir: Path
    model: str = DEFAULT_MODEL
    method: str = "auto"
    spec: SpecConfig = field(default_factory=SpecConfig)
    draft_source: str = "auto"
    dpi: int = 144
    pages: str | None = None  # "1-3,7"
    max_pages: int | None = None
    device: str = "auto"
    dtype: str = "auto"
    baseline: bool = False  # also run `ar` and report speedups
    force: bool = False
    password: str | None = None
    shard: tuple[int, int] = (1, 1)  # (i, N), 1-based
    glob: str | None = None  # folder inputs: file-name pattern (None: the known extensions)
    workers: int = 0  # background processes preparing (render + draft) the next pages; 0 = inline
    # No model was asked for (no --model/HSD_MODEL, method auto or draft): when the default model
    # cannot be loaded, convert with the draft pipeline and say so, instead of failing the run.
    draft_fallback: bool = False
    engine: str = "local"  # local: this process (+ --workers); ray: a Ray cluster (distributed/)
    ray: RayConfig = field(default_factory=RayConfig)
    images: bool = False  # figure crops in out/<key>/figures/, linked from the Markdown
    formats: tuple[str, ...] = ("md",)  # document outputs: out/<key>.md, out/<key>.json

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}, got {self.engine!r}")
        if self.images and self.engine == "ray":  # the crops need the page image, which stays on the workers
            raise ValueError("--images does not work with --engine ray yet; run it with the local engine")
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        if self.draft_source not in DRAFT_SOURCES:
            raise ValueError(f"draft_source must be one of {DRAFT_SOURCES}")
        if not 36 <= self.dpi <= 600:
            raise ValueError(f"dpi must be in [36, 600], got {self.dpi}")
        if self.workers < 0:
            raise ValueError(f"workers must be >= 0, got {self.workers}")
        if not self.formats or any(f not in FORMATS for f in self.formats):
            raise ValueError(f"format must be a comma-separated list of {', '.join(FORMATS)}, got {','.join(self.formats)!r}")
        i, n = self.shard
        if not 1 <= i <= n:
            raise ValueError(f"shard must be i/N with 1 <= i <= N, got {i}/{n}")


def spec_options(cfg: RunConfig) -> dict[str, object]:
    """The settings that change a target method's output (the page reports' resume key)."""
    s, c = cfg.spec, cfg
    return {
        "method": c.method, "model": c.model, "dpi": c.dpi, "draft_source": c.draft_source,
        "tau": s.tau, "window": s.window, "min_window": s.min_window, "max_depth": s.max_depth,
        "max_candidates": s.max_candidates, "max_new_tokens": s.max_new_tokens,
        "repeat_guard": s.repeat_guard, "region_starts": s.region_starts, "dtype": c.dtype,
        "on_loop": s.on_loop,
    }


def default_workers() -> int:
    """Prepare processes by default: one core stays with the model, at most 4 prepare pages."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))
