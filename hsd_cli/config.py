"""Frozen configuration records, validated at construction."""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

ON_LOOP = ("stop", "draft")
COST_MODELS = ("measured", "flat")
FORMATS = ("md", "json")
DEFAULT_MODEL = "tencent/HunyuanOCR"


# The registries: every method, draft source and engine is one row here, and the command line's
# choices and help, `hsd bench`'s methods and RunConfig's checks follow from the rows. `code` is
# "module:attribute", imported only when used (the methods import torch; this module must not).
@dataclass(frozen=True, slots=True)
class MethodRow:
    """`--method NAME`: a class implementing methods/base.Method (or, model=False, a PageConverter)."""

    name: str
    code: str
    help: str
    model: bool = True  # False: the draft pipeline's own output, no target model


@dataclass(frozen=True, slots=True)
class DraftSourceRow:
    """`--draft-source NAME`: a class implementing drafts/base.DraftSource."""

    name: str
    code: str
    help: str


@dataclass(frozen=True, slots=True)
class EngineRow:
    """`--engine NAME`: a function run(cfg, *, quiet, debug, stdin) -> RunSummary."""

    name: str
    code: str
    help: str
    images: bool = True  # --images works with it


METHODS = (
    MethodRow(
        "auto", "hsd_cli.methods.auto:Auto", "per page, hsd or page, whichever the device's measured costs favour"
    ),
    MethodRow("hsd", "hsd_cli.methods.hsd:HSD", "two-stage speculative decoding"),
    MethodRow("page", "hsd_cli.methods.page:Page", "page-level speculative"),
    MethodRow("ar", "hsd_cli.methods.ar:AR", "plain greedy decoding"),
    MethodRow("draft", "hsd_cli.methods.draft:DraftConverter", "the draft pipeline alone, no model", model=False),
)
DEFAULT_METHOD = "auto"
# In `auto` order: the first source that can read a page drafts it (the last reads any page).
DRAFT_SOURCES = (
    DraftSourceRow("text", "hsd_cli.drafts.text_layer:TextLayerSource", "the PDF text layer"),
    DraftSourceRow("ocr", "hsd_cli.drafts.rapid:RapidOcrSource", "OCR"),
)
AUTO_SOURCE = "auto"  # --draft-source auto: per page, the first of DRAFT_SOURCES that can read it
ENGINES = (
    EngineRow("local", "hsd_cli.pipeline.local:convert", "this machine (--workers prepare pages)"),
    EngineRow(
        "ray",
        "hsd_cli.pipeline.ray.engine:run",
        'a Ray cluster, many GPUs and machines, same outputs (pip install "hsd-cli[ray]"; docs/ray.md)',
        images=False,  # the figure crops need the page image, which stays on the workers
    ),
)


def names(rows: tuple[MethodRow, ...] | tuple[DraftSourceRow, ...] | tuple[EngineRow, ...]) -> tuple[str, ...]:
    """The names of a registry's rows, in its order: the command line's choices."""
    return tuple(r.name for r in rows)


def row_named(rows: tuple, name: str):  # noqa: ANN201 - the registry's own row type
    """The row called `name` (ValueError naming the choices when there is none)."""
    for r in rows:
        if r.name == name:
            return r
    raise ValueError(f"must be one of {names(rows)}, got {name!r}")


def load(row: MethodRow | DraftSourceRow | EngineRow) -> Any:
    """The class or function a row names, imported now (by the code that is about to use it)."""
    module, name = row.code.split(":")
    return getattr(importlib.import_module(module), name)


def draft_source_choices() -> tuple[str, ...]:
    """`--draft-source`: auto, then every registered source."""
    return (AUTO_SOURCE, *names(DRAFT_SOURCES))


def _knob(
    default: Any, flag: str, help: str, *, min: int | None = None, choices: tuple[str, ...] = (), lossless: bool = True
) -> Any:
    """A SpecConfig field and its option. A bool knob defaults to True and its flag turns it off.
    lossless=False: the knob changes the output even at tau = 1 (see spec_options)."""
    return field(
        default=default, metadata={"flag": flag, "help": help, "min": min, "choices": choices, "lossless": lossless}
    )


@dataclass(frozen=True, slots=True)
class SpecConfig:
    """Decoupled speculative verification settings (names follow the HSD paper, sec. 3.2)."""

    # Each field is also the `hsd convert` / `hsd bench` option named in its metadata (flag, help,
    # env var HSD_<FLAG>): cli/options.py declares the options from here, and the resume key
    # (spec_options) is derived from these fields, so a new knob is declared once, here.
    tau: float = _knob(1.0, "--tau", "Acceptance threshold in (0, 1]; 1.0 = exact greedy match (lossless).")
    window: int = _knob(3, "--window", "Reference window n, in tokens.", min=1)
    min_window: int = _knob(
        1, "--min-window", "Fall back to windows down to this many tokens when n finds nothing.", min=1
    )
    # Longest candidate continuation, in tokens. 48 over 24: fewer steps on every page of the
    # full-size ablation (benchmarks/RESULTS.md, the knob ablation); cost-sized trees cut what a step
    # cannot afford, so a deeper candidate only costs where the device verifies it cheaply.
    max_depth: int = _knob(48, "--max-depth", "Longest candidate continuation, in tokens.", min=1)
    max_candidates: int = _knob(8, "--max-candidates", "Candidates per verification step.", min=1)
    max_new_tokens: int = _knob(2048, "--max-new-tokens", "Token budget per page / region.", min=1, lossless=False)
    repeat_guard: int = _knob(
        512,
        "--repeat-guard",
        "Stop a page as truncated when its last N tokens loop with a period of at most N/8 tokens (0 = off).",
        min=0,
        lossless=False,
    )
    max_nodes: int = _knob(
        64, "--max-nodes", "Node budget: most draft tokens in one tree per verification step.", min=1
    )
    cost_aware: bool = _knob(
        True,
        "--no-cost-trees",
        "Do not size trees by the device's measured forward cost; use every candidate up to --max-nodes.",
    )
    # flat: decide as on a device whose forward costs the same up to max_nodes tree tokens per row
    # and a Stage-1 batch of rows (a GPU at batch 1), so a GPU's policy can be tried anywhere.
    cost_model: str = _knob(
        "measured",
        "--cost-model",
        "What a forward pass costs when sizing trees and choosing methods: measured on this device, "
        "or flat (the same up to --max-nodes tree tokens per row and a --stage1-batch of rows, as a GPU).",
        choices=COST_MODELS,
    )
    # A row the repeat guard stops: "stop" keeps it as is (truncated); "draft" cuts the loop after
    # its first period and appends the rest of the row's draft (spec/loop.py).
    on_loop: str = _knob(
        "stop",
        "--on-loop",
        "When the repeat guard finds a loop: stop (the page is truncated there), or "
        "draft: cut the loop after its first period and append the rest of the draft "
        "(report: loop_repaired).",
        choices=ON_LOOP,
        lossless=False,
    )
    region_starts: bool = _knob(True, "--no-region-starts", "Stage 2: do not offer region beginnings as candidates.")
    stage1_batch: int = _knob(16, "--stage1-batch", "Most region crops verified in one batch.", min=1)

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
        if self.cost_model not in COST_MODELS:
            raise ValueError(f"cost_model must be one of {COST_MODELS}, got {self.cost_model!r}")
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
    method: str = DEFAULT_METHOD
    spec: SpecConfig = field(default_factory=SpecConfig)
    draft_source: str = AUTO_SOURCE
    dpi: int = 144
    pages: str | None = None  # "1-3,7"
    max_pages: int | None = None
    device: str = "auto"
    dtype: str = "auto"
    graphs: bool = True  # CUDA: hsd's static KV cache and CUDA graphs (--no-graphs: eager transformers)
    baseline: bool = False  # also run `ar` and report speedups
    force: bool = False
    password: str | None = None
    shard: tuple[int, int] = (1, 1)  # (i, N), 1-based
    glob: str | None = None  # folder inputs: file-name pattern (None: the known extensions)
    workers: int | None = 0  # processes preparing (render + draft) the next pages; 0: inline; None: by converter
    batch_pages: int | None = None  # pages verified together per forward pass; None: the device's default
    # No model was asked for (no --model/HSD_MODEL, method auto or draft): when the default model
    # cannot be loaded, convert with the draft pipeline and say so, instead of failing the run.
    draft_fallback: bool = False
    engine: str = "local"  # local: this process (+ --workers); ray: a Ray cluster (distributed/)
    ray: RayConfig = field(default_factory=RayConfig)
    images: bool = False  # figure crops in out/<key>/figures/, linked from the Markdown
    formats: tuple[str, ...] = ("md",)  # document outputs: out/<key>.md, out/<key>.json

    def __post_init__(self) -> None:
        if self.engine not in names(ENGINES):
            raise ValueError(f"engine must be one of {names(ENGINES)}, got {self.engine!r}")
        if self.images and not row_named(ENGINES, self.engine).images:
            raise ValueError(f"--images does not work with --engine {self.engine} yet; run it with the local engine")
        if self.method not in names(METHODS):
            raise ValueError(f"method must be one of {names(METHODS)}, got {self.method!r}")
        if self.draft_source not in draft_source_choices():
            raise ValueError(f"draft_source must be one of {draft_source_choices()}")
        if not 36 <= self.dpi <= 600:
            raise ValueError(f"dpi must be in [36, 600], got {self.dpi}")
        if self.workers is not None and self.workers < 0:
            raise ValueError(f"workers must be >= 0, got {self.workers}")
        if self.batch_pages is not None and self.batch_pages < 1:
            raise ValueError(f"batch pages must be >= 1, got {self.batch_pages}")
        if not self.formats or any(f not in FORMATS for f in self.formats):
            raise ValueError(
                f"format must be a comma-separated list of {', '.join(FORMATS)}, got {','.join(self.formats)!r}"
            )
        i, n = self.shard
        if not 1 <= i <= n:
            raise ValueError(f"shard must be i/N with 1 <= i <= N, got {i}/{n}")


# The run settings beyond SpecConfig that change a target method's output (the model and how
# it sees the page); names as in the resume key since the first release.
RUN_KEY = ("method", "model", "dpi", "draft_source", "dtype")


def spec_options(cfg: RunConfig) -> dict[str, object]:
    """The settings that change a target method's output: the page reports' resume key.

    Derived from RUN_KEY and the SpecConfig fields, so a new knob joins the key by itself. At
    tau = 1 the output is greedy AR decoding whatever the tree knobs are (lossless), so only the
    knobs marked lossless=False (max_new_tokens, repeat_guard, on_loop) enter the key and a rerun
    with another --window or --max-nodes resumes; below 1 the accepted tokens depend on every
    knob, so all of them enter it (before, max_nodes and cost_aware were missing: stale pages).
    """
    key: dict[str, object] = {name: getattr(cfg, name) for name in RUN_KEY}
    exact = cfg.spec.tau >= 1.0
    for f in fields(SpecConfig):
        if not (exact and f.metadata["lossless"]) or f.name == "tau":
            key[f.name] = getattr(cfg.spec, f.name)
    return key


def cache_dir() -> Path:
    """What hsd makes once per machine and keeps (cost curves, flushed ONNX models): $HSD_CACHE_DIR,
    else ~/.cache/hsd."""
    return Path(os.environ.get("HSD_CACHE_DIR") or Path.home() / ".cache" / "hsd")
