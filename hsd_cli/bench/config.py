"""The one frozen record a `hsd bench` run is built from."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path

from hsd_cli.config import DEFAULT_MODEL, METHODS, SpecConfig

BASELINE = "ar"  # plain greedy decoding: every run pairs the other methods with it (their speedups)
# transformers' own decoding, measured beside ours (bench/generate.py): name -> what it passes to
# `generate` (`{lookup}`: the run's --lookup-tokens).
EXTERNAL = {
    "lookup": {"prompt_lookup_num_tokens": "{lookup}"},  # prompt lookup decoding
    "hf-static": {"cache_implementation": "static"},  # static KV cache; compiled by generate on a GPU
}
# Every method with a model (config.METHODS), and transformers' own.
BENCH_METHODS = (*(r.name for r in METHODS if r.model), *EXTERNAL)
NOISE_SWEEP = (0.0, 0.05, 0.1, 0.2, 0.4)


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """Options of one benchmark run; `command_line` re-creates it."""

    inputs: tuple[Path, ...] = ()
    model: str = DEFAULT_MODEL
    methods: tuple[str, ...] = (BASELINE, "page", "hsd")
    pages: str | None = None  # "1-3,7", clipped to each document's length
    max_pages: int | None = None  # at most the first N selected pages per document
    dpi: int = 144
    knobs: SpecConfig = field(default_factory=SpecConfig)  # the speculative knobs, as `hsd convert` takes them
    oracle: bool = False
    crop_noise: float = 0.05  # oracle: Stage-1 crop references = the page's spans corrupted at this rate
    noise: float | None = None  # draft-noise rate (oracle mode): drafts = corrupted reference
    noise_sweep: tuple[float, ...] = ()  # run every rate and draw the curve
    warmup: int = 1  # untimed warm-up runs of every method before measuring
    repeat: int = 1  # timed runs per page and method; the fastest counts (shared CPUs are noisy)
    lookup_tokens: int = 10  # prompt_lookup_num_tokens for the `lookup` method
    draft_source: str = "auto"
    device: str = "auto"
    dtype: str = "auto"
    graphs: bool = True  # CUDA: hsd's static KV cache and CUDA graphs (--no-graphs: eager transformers)
    threads: int | None = None  # torch CPU threads (None: every core); always pinned and recorded
    seed: int = 0
    json_path: Path | None = None
    markdown_path: Path | None = None  # RESULTS.md: this run's section is replaced
    plot_path: Path | None = None  # noise sweep: PNG of SR and AAL against the noise rate
    full_size: str | None = None  # family: full-size random weights (with inputs: the target; else: cost curve)
    cost_prompt: int = 1024  # full-size timing: prompt tokens in the cache
    cost_reps: int = 3
    max_pixels: int | None = None  # cap on the page image the target sees (drafts still use the full render)
    batch_pages: tuple[int, ...] = ()  # throughput: every page at each of these batch sizes
    fill: int = 0  # throughput: at least this many batches of pages at each size (the pages repeated)
    workers: int = 0  # throughput: prepare in this many processes beside verification (0: charged serially)

    def __post_init__(self) -> None:
        bad = [m for m in self.methods if m not in BENCH_METHODS]
        if bad or not self.methods:
            raise ValueError(f"methods must be a comma list of {BENCH_METHODS}, got {self.methods}")
        if min(self.lookup_tokens, self.repeat, self.threads or 1) < 1 or self.warmup < 0:
            raise ValueError("lookup_tokens and repeat must be >= 1, warmup >= 0")
        if self.max_pixels is not None and self.max_pixels < 28 * 28:
            raise ValueError(f"max_pixels must be at least 784, got {self.max_pixels}")
        for rate in (*self.noise_sweep, *(() if self.noise is None else (self.noise,)), self.crop_noise):
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"noise rates must be in [0, 1], got {rate}")
        if (self.noise is not None or self.noise_sweep) and not self.oracle:
            raise ValueError("--noise and --noise-sweep need --oracle (the reference is the clean draft)")
        if self.workers < 0 or (self.workers and not self.batch_pages):
            raise ValueError("--workers must be >= 0 and applies to --batch-pages runs")
        if self.fill < 0 or (self.fill and not self.batch_pages):
            raise ValueError("--fill must be >= 0 and applies to --batch-pages runs")
        if not self.full_size and not self.inputs:  # (--full-size alone: the cost curve)
            raise ValueError("give input files or folders (or --full-size FAMILY)")

    def generate_options(self, method: str) -> dict:
        """What an external method (EXTERNAL) passes to `generate` in this run."""
        return {k: self.lookup_tokens if v == "{lookup}" else v for k, v in EXTERNAL[method].items()}

    def spec(self) -> SpecConfig:
        """The speculative settings every method of this run decodes with."""
        return self.knobs

    @property
    def tau(self) -> float:
        return self.knobs.tau

    @property
    def max_new_tokens(self) -> int:
        return self.knobs.max_new_tokens

    @property
    def cost_aware(self) -> bool:
        return self.knobs.cost_aware

    def command_line(self) -> str:
        """The `hsd bench` command that reproduces this run."""
        if self.full_size and not self.inputs:
            return (
                f"hsd bench --full-size {self.full_size} --device {self.device} --dtype "
                f"{self.dtype} --cost-prompt {self.cost_prompt} --cost-reps {self.cost_reps}"
                + " ".join(["", *_flag("--threads", self.threads)])
                + _path_flags(self)
            )
        parts = [
            "hsd bench",
            *(shlex.quote(str(p)) for p in self.inputs),
            "--model",
            shlex.quote(self.model),
            "--methods",
            ",".join(self.methods),
            "--dpi",
            str(self.dpi),
            "--warmup",
            str(self.warmup),
            "--repeat",
            str(self.repeat),
        ]
        parts += _flag("--pages", self.pages) + _flag("--max-pages", self.max_pages) + knob_flags(self.knobs)
        parts += ["--oracle", "--crop-noise", str(self.crop_noise)] if self.oracle else []
        parts += _flag("--full-size", self.full_size) + _flag("--max-pixels", self.max_pixels)
        parts += _flag("--noise", self.noise)
        parts += _flag("--noise-sweep", ",".join(map(str, self.noise_sweep)) or None)
        if self.device != "auto" or self.dtype != "auto":
            parts += ["--device", self.device, "--dtype", self.dtype]
        parts += _flag("--threads", self.threads) + ([] if self.graphs else ["--no-graphs"])
        parts += _flag("--batch-pages", ",".join(map(str, self.batch_pages)) or None)
        parts += _flag("--workers", self.workers or None) + _flag("--fill", self.fill or None)
        return " ".join(parts) + _path_flags(self)


def knob_flags(knobs: SpecConfig) -> list[str]:
    """Every speculative knob as its option (a switch where a bool knob is off)."""
    parts: list[str] = []
    for f in fields(SpecConfig):
        value, flag = getattr(knobs, f.name), f.metadata["flag"]
        if isinstance(value, bool):
            parts += [] if value else [flag]
        else:
            parts += [flag, shlex.quote(str(value))]
    return parts


def _flag(name: str, value: object) -> list[str]:
    return [] if value is None else [name, shlex.quote(str(value))]


def _path_flags(cfg: BenchConfig) -> str:
    flags = _flag("--out-json", cfg.json_path) + _flag("--markdown", cfg.markdown_path)
    flags += _flag("--plot", cfg.plot_path)
    return (" " + " ".join(flags)) if flags else ""


def baseline_first(methods: tuple[str, ...]) -> tuple[str, ...]:
    """The methods in the order a run measures them: the baseline first, whether asked for or not."""
    return (BASELINE, *(m for m in methods if m != BASELINE))
