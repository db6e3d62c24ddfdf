"""hsd's own work per verification pass, by phase, at 1, 8 and 32 rows (issue 44's host figures).

    python benchmarks/host_step.py --out-json benchmarks/results/host-step-cpu.json

The target is a decoder of real depth (HunyuanOCR's 24 layers) and real vocabulary (Qwen's 151,936
tokens) but width 64, so its forward is nearly free and what a pass costs beyond it is hsd's. Each
row writes real text: the dev corpus's ground-truth Markdown, cut into Qwen3's tokens, one document
after another from a row's own first one; the target is forced to it (an oracle: each node's
argmax set far above the rest to the reference token it predicts, so the penalty applied after it
moves nothing) and drafts from the same text with 5% of its words corrupted
(bench/noise.corrupt_text), one draft a block. A row's prompt holds PROMPT distinct tokens, its
repetition-penalty context. Trees are sized by an H100's cost curve (flat to 128 tokens a pass)
up to 64 nodes, as on a GPU, where the host's share of a pass matters.

Each batch size runs with the penalty off and on (1.05, Qwen2.5-VL's), both loops stepping in turn
so a busy machine slows both alike, in rounds; the quietest round is reported. Phases come from
the loop's own clock (spec/clock.py): `host` is what the host spends (align .. linearize: propose;
pack; readback; accept; commit); `forward`, `penalty` and `argmax` are device work (on a CPU they
run on the host too, so they are apart).
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path
from random import Random

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import record  # noqa: E402

from hsd_cli.bench.noise import corrupt_text  # noqa: E402
from hsd_cli.bench.reference import split_blocks  # noqa: E402
from hsd_cli.config import SpecConfig  # noqa: E402
from hsd_cli.spec.budget import CostModel  # noqa: E402
from hsd_cli.spec.clock import PhaseClock  # noqa: E402
from hsd_cli.spec.decode import SpecStepper  # noqa: E402
from hsd_cli.spec.row import DecodeOptions  # noqa: E402
from hsd_cli.spec.stop import StopRule  # noqa: E402

TOKENIZER = record.REPO.parent / "shared" / "tokenizers" / "qwen3" / "tokenizer.json"
LAYERS, VOCAB, WIDTH = 24, 151936, 64
PROMPT = 600  # distinct context tokens a row (the penalty case)
PENALTY = 1.05
NOISE = 0.05
REFERENCE = 6000  # tokens a row's reference holds: more than the passes write
# An H100's eager step over a 1024-token cache (2026-11-26, before CUDA graphs): flat up to 128 tree tokens.
H100 = CostModel(((1, 0.0251), (128, 0.0251), (256, 0.0262)), slot=6.4e-9, base=1024)
HOST = ("align", "trie", "probs", "sizing", "linearize", "pack", "readback", "accept", "commit")
DEVICE = ("forward", "penalty", "argmax")
FORCED = 1e4  # the forced token's logit: far above a random model's (and still after the penalty)


class Forced:
    """A TargetSession whose rows write their references: the real forward pass, then each node's
    argmax forced to the reference token it predicts (row b's node at depth d: ref[n_gen[b] + d])."""

    def __init__(self, inner, refs: list[list[int]]):
        self.inner = inner
        self.refs = torch.tensor(refs, device=inner.valid.device)  # [B, L]
        self.n_gen = torch.ones(len(refs), dtype=torch.long, device=inner.valid.device)

    @property
    def priced(self) -> bool:
        return self.inner.priced

    def step(self, ids, ancestry, depth):
        logits = self.inner.step(ids, ancestry, depth)
        at = (self.n_gen[:, None] + depth.to(self.n_gen.device)).clamp(max=self.refs.shape[1] - 1)
        with torch.inference_mode():
            return logits.scatter_(-1, self.refs.gather(1, at)[..., None], FORCED)

    def commit(self, keep: list[list[int]]) -> None:
        self.inner.commit(keep)
        self.n_gen += torch.tensor([len(p) for p in keep], device=self.n_gen.device)

    def select_rows(self, rows: list[int]) -> None:
        self.inner.select_rows(rows)
        self.refs, self.n_gen = self.refs[rows], self.n_gen[rows]

    def extend(self, other) -> None:
        raise NotImplementedError  # one batch, added once

    def rollback(self) -> None:
        self.inner.rollback()

    def slots(self) -> int:
        return self.inner.slots()


def build_model(device: str, layers: int, vocab: int):
    """The narrow decoder at real depth and vocabulary, random weights (seeded)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    from hsd_cli.targets.runtime.attention import attention_for

    attention_for(device)
    config = Qwen2Config(
        hidden_size=WIDTH,
        intermediate_size=2 * WIDTH,
        num_hidden_layers=layers,
        num_attention_heads=2,
        num_key_value_heads=1,
        vocab_size=vocab,
        tie_word_embeddings=True,
        max_position_embeddings=32768,
    )
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device(device):
        return Qwen2ForCausalLM(config).eval()


def documents(corpus: Path, vocab: int) -> list[tuple[list[int], list[list[int]]]]:
    """Per ground-truth Markdown file of the corpus: its tokens and its blocks' noisy drafts."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(TOKENIZER))
    rng = Random(0)
    out = []
    for path in sorted(corpus.glob("*/*.md")) + sorted(corpus.glob("*/mds/*.md")):
        text = path.read_text(encoding="utf-8")
        ids = [t % vocab for t in tok.encode(text, add_special_tokens=False).ids]
        drafts = [tok.encode(corrupt_text(b, NOISE, rng), add_special_tokens=False).ids for b in split_blocks(text)]
        if len(ids) > 50:
            out.append((ids, [[t % vocab for t in d] for d in drafts if d]))
    return out


def row_text(docs, first: int) -> tuple[list[int], list[list[int]]]:
    """A row's reference (documents in turn from `first`, REFERENCE tokens) and their drafts."""
    ref: list[int] = []
    drafts: list[list[int]] = []
    d = first
    while len(ref) < REFERENCE:
        ids, blocks = docs[d % len(docs)]
        ref += ids
        drafts += blocks
        d += 1
    return ref[:REFERENCE], drafts


def start(model, docs, rows: int, penalty: float, device: str) -> SpecStepper:
    """A stepper over `rows` prefilled rows (PROMPT distinct tokens each), forced to their texts."""
    from transformers import DynamicCache

    from hsd_cli.targets.runtime.session import HFSession

    vocab = model.config.vocab_size
    texts = [row_text(docs, b) for b in range(rows)]
    prompts = [Random(b).sample(range(1000, vocab), PROMPT) for b in range(rows)]
    ids = torch.tensor(prompts, device=device)
    cache = DynamicCache(config=model.config)
    with torch.inference_mode():
        pos = torch.arange(PROMPT, device=device)[None].expand(rows, -1)
        model(input_ids=ids, position_ids=pos, past_key_values=cache, use_cache=True, logits_to_keep=1)
    valid = torch.ones(rows, PROMPT, dtype=torch.bool, device=device)
    session = Forced(
        HFSession(model, cache, valid, torch.full((rows,), PROMPT, device=device), 0, prompts), [t[0] for t in texts]
    )
    first = torch.zeros(rows, vocab)
    first[torch.arange(rows), [t[0][0] for t in texts]] = 1.0
    cfg = SpecConfig(max_new_tokens=REFERENCE)
    rule = StopRule(frozenset({vocab - 1}), REFERENCE - 64, cfg.repeat_guard)
    opts = DecodeOptions(cost=H100, penalty=penalty, prompts=prompts)
    stepper = SpecStepper()
    # On a CPU, this thread's CPU seconds (a busy machine's waits left out); on a GPU, wall time.
    stepper.clock = PhaseClock(time.thread_time if device == "cpu" else time.perf_counter)
    stepper.add(session, first, [t[1] for t in texts], cfg, rule, opts)
    return stepper


def measure(model, docs, rows: int, passes: int, rounds: int, warmup: int, device: str) -> list[dict]:
    """Both loops (penalty off, on) step in turn, `rounds` rounds of `passes`; per loop, from the
    quietest round (the least time of both loops together): per-pass ms by phase, tree width, tokens."""
    loops = [start(model, docs, rows, p, device) for p in (1.0, PENALTY)]
    for _ in range(warmup):
        for s in loops:
            s.step()
    # A collection of the objects made so far (model, corpus, indexes) would land on whichever
    # phase happened to trigger it: one such spike put 50 ms a pass on one loop's trie phase.
    gc.collect()
    gc.freeze()
    seen = []  # per round, per loop: (seconds by phase, summed widths, tokens written)
    for _ in range(rounds):
        tokens = [_written(s) for s in loops]
        widths = [0, 0]
        for s in loops:
            s.clock.reset()
        for _ in range(passes):
            for i, s in enumerate(loops):
                s.step()
                widths[i] += s.width
        seen.append(
            [(dict(s.clock.seconds), w, _written(s) - t) for s, w, t in zip(loops, widths, tokens, strict=True)]
        )
    gc.unfreeze()
    assert all(len(s.active) == rows for s in loops), "a row stopped during the measured passes"
    quiet = min(seen, key=lambda r: sum(sum(sec.values()) for sec, _, _ in r))
    out = []
    for penalty, (seconds, width, written) in zip((1.0, PENALTY), quiet, strict=True):
        ms = {p: 1e3 * seconds.get(p, 0.0) / passes for p in HOST + DEVICE}
        host = sum(ms[p] for p in HOST)
        out.append(
            {
                "rows": rows,
                "penalty": penalty,
                "passes": passes,
                "rounds": rounds,
                "tree_width": width / passes,
                "tokens_per_pass": written / passes,
                "phases_ms": ms,
                "host_ms": host,
                "host_ms_per_row": host / rows,
                "pass_ms": sum(ms.values()),
            }
        )
    return out


def _written(stepper: SpecStepper) -> int:
    return sum(len(r.tokens) for r in stepper.rows.values())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, nargs="+", default=[1, 8, 32], help="batch sizes")
    p.add_argument("--passes", type=int, default=8, help="measured passes a round")
    p.add_argument("--rounds", type=int, default=3, help="rounds of passes; the quietest is reported")
    p.add_argument("--warmup", type=int, default=4, help="passes before measuring")
    p.add_argument("--layers", type=int, default=LAYERS)
    p.add_argument("--vocab", type=int, default=VOCAB)
    p.add_argument("--device", default="cpu")
    p.add_argument(
        "--threads", type=int, default=1, help="torch threads (1: the phases' CPU seconds are all this thread's)"
    )
    p.add_argument("--corpus", type=Path, default=record.CORPUS)
    p.add_argument("--out-json", type=Path)
    args = p.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.perf_counter()
    model = build_model(args.device, args.layers, args.vocab)
    docs = documents(args.corpus, args.vocab)
    cases = [
        c for rows in args.rows for c in measure(model, docs, rows, args.passes, args.rounds, args.warmup, args.device)
    ]
    for c in cases:
        phases = " ".join(f"{k} {v:.2f}" for k, v in c["phases_ms"].items())
        head = f"rows {c['rows']:3d} penalty {c['penalty']}: width {c['tree_width']:.1f}"
        print(f"{head} host {c['host_ms']:.2f} ms ({c['host_ms_per_row']:.3f}/row) pass {c['pass_ms']:.1f} | {phases}")
    report = {
        **record.header("host_step.py", argv if argv is not None else sys.argv[1:], args.device),
        "schema_version": 1,
        "wall_s": time.perf_counter() - t0,
        "model": {
            "layers": args.layers,
            "vocab": args.vocab,
            "width": WIDTH,
            "prompt_tokens": PROMPT,
            "penalty": PENALTY,
        },
        "cases": cases,
    }
    if args.out_json:
        record.write(args.out_json, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
