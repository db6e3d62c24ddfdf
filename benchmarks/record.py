"""What a benchmark script writes beside its figures: the command, the code's commit and the machine,
with this machine's paths written as placeholders (CORPUS, ...), so the JSON can go into results/.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "dev"  # the dev corpus beside the checkout


def commit() -> str | None:
    """git's HEAD of this checkout; None where there is no git or no repository (a lent machine)."""
    from hsd_cli.bench.machine import code_commit

    return code_commit(REPO)


def header(script: str, argv: list[str], device: str = "cpu") -> dict:
    """`command`, `commit` and `machine` of a run of benchmarks/`script` with `argv`."""
    from hsd_cli.bench.machine import machine_info

    command = f"python benchmarks/{script} {shlex.join(argv)}".strip()
    return {"command": command, "commit": commit(), "machine": machine_info(device)}


def scrub(value, placeholders: dict[str, str]):
    """`value` (any JSON) with each path in `placeholders` written as its name, longest path first."""
    if isinstance(value, dict):
        return {k: scrub(v, placeholders) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub(v, placeholders) for v in value]
    if isinstance(value, str):
        for path, name in sorted(placeholders.items(), key=lambda p: -len(p[0])):
            value = value.replace(path, name)
    return value


def write(path: Path, data: dict, placeholders: dict[str, str] | None = None) -> None:
    """The report as JSON, the dev corpus written CORPUS and the checkout's paths relative to it."""
    names = {str(CORPUS.resolve()): "CORPUS", str(REPO) + "/": "", **(placeholders or {})}
    path.write_text(json.dumps(scrub(data, names), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
