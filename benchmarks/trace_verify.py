"""Trace the hsd_cli modules one page's verify stage passes through, and check that none is
re-entered from below (a module called again by something it called: a layering loop).

    PYTHONPATH=$PWD python benchmarks/trace_verify.py MODEL_DIR --method hsd [--pdf F] [--page N]

Prints the modules in the order they are first entered, then every "down path" (the chain of
distinct hsd_cli modules on the call stack, collapsed) that reaches a new module, then any
re-entry. Works on the old tree (SpecConverter) and the new one (PageConverter).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _converter(model: str, method: str):
    """The converter for `method` on a loaded model, whichever tree PYTHONPATH points at."""
    from hsd_cli.config import RunConfig, SpecConfig
    from hsd_cli.targets.runtime.registry import load_target

    cfg = RunConfig(
        inputs=(), out_dir=Path("."), model=model, method=method, dtype="fp32", spec=SpecConfig(max_new_tokens=64)
    )
    target = load_target(model, "cpu", "fp32")
    try:
        from hsd_cli.driver.choose import converter_with
    except ImportError:  # the tree before issue 19
        from hsd_cli.methods.spec_converter import SpecConverter

        return SpecConverter(target, cfg)
    return converter_with(target, cfg)


def _module(frame) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if name.startswith("hsd_cli") else None


def trace(call) -> tuple[list[str], list[tuple[str, ...]], list[tuple[str, ...]], dict[str, int]]:
    """(first-entry order, new down paths, re-entries, passes) of the hsd_cli modules `call()`
    enters; a pass is an entry from another module (calls within a module do not count)."""
    passes: dict[str, int] = {}
    order: list[str] = []
    paths: list[tuple[str, ...]] = []
    again: list[tuple[str, ...]] = []

    def on_call(frame, event, arg):
        mod = _module(frame)
        if mod is None:
            return None
        chain, f = [], frame
        while f is not None:  # the stack's hsd_cli modules, innermost first, consecutive ones merged
            m = _module(f)
            if m and (not chain or chain[-1] != m):
                chain.append(m)
            f = f.f_back
        chain.reverse()
        if len(chain) < 2 or chain[-2] != mod or _module(frame.f_back or frame) != mod:
            passes[mod] = passes.get(mod, 0) + 1
        if mod not in order:
            order.append(mod)
            paths.append(tuple(chain))
        if mod in chain[:-1] and tuple(chain) not in again:
            again.append(tuple(chain))
        return None

    sys.settrace(on_call)
    try:
        call()
    finally:
        sys.settrace(None)
    return order, paths, again, passes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--method", default="hsd")
    ap.add_argument("--pdf", default=str(ROOT / "sample_docs" / "scanned.pdf"))  # OCR drafts: Stage 1 runs
    ap.add_argument("--page", type=int, default=1)
    args = ap.parse_args()
    from hsd_cli.pipeline.prepare import PrepareConfig, Preparer

    prepared = Preparer(PrepareConfig(150, None, "auto"))(Path(args.pdf), args.page)
    converter = _converter(args.model, args.method)
    converter.convert(prepared)  # warm-up: lazy imports and caches are not part of the path
    order, paths, again, passes = trace(lambda: converter.convert(prepared))
    print(
        f"# method {args.method}: {len(order)} modules, in order of first entry (passes: entries from another module)"
    )
    for mod in order:
        print(f"{mod}  passes={passes[mod]}")
    print("# down paths that reach a new module")
    for p in paths:
        print(" -> ".join(m.removeprefix("hsd_cli.") for m in p))
    print(f"# re-entered from below: {len(again)}")
    for p in again:
        print("  " + " -> ".join(m.removeprefix("hsd_cli.") for m in p))
    return 1 if again else 0


if __name__ == "__main__":
    sys.exit(main())
