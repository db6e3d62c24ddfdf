"""Checks of the command line made before any work: each failure is one usage-error line."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

from hsd_cli.config import RunConfig
from hsd_cli.errors import HsdError
from hsd_cli.pages.inputs import STDIN, printable


def inputs_exist(inputs: Sequence[str]) -> None:
    """A path named on the command line that does not exist is a typo: stop before any work.
    (Paths read from stdin stay per-document errors: a batch goes on past one of them.)"""
    for item in inputs:
        if item != STDIN and not os.path.lexists(item):
            raise ValueError(f"{printable(item)}: no such file or directory")


def model_spelling(model: str) -> str:
    """One spelling per model, so resume sees the same model: a folder by its resolved path."""
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path.resolve())
    return model.rstrip("/") or model  # "org/name/" is the hub id "org/name"


def device(device: str) -> str:
    """auto, cpu, mps, cuda or cuda:N; whether the machine has it is checked when the model loads."""
    if not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", device):
        raise ValueError(f"--device must be auto, cpu, mps, cuda or cuda:N, got {device!r}")
    return device


def environment() -> None:
    """Settings read from the environment later, when the model loads: a bad one is one usage error now."""
    from hsd_cli.targets.runtime import ragged

    ragged.wanted()


def pages(spec: str | None) -> None:
    """A malformed --pages is one usage error up front, not a failure of every document."""
    from hsd_cli.pages.render import page_ranges

    page_ranges(spec)


@contextlib.contextmanager
def summary_on_failure(cfg: RunConfig) -> Iterator[None]:
    """A run that fails before its documents (model, output folder) still leaves run-summary.json."""
    try:
        yield
    except HsdError as e:
        from hsd_cli.report import store
        from hsd_cli.report.json import run_summary_to_json
        from hsd_cli.report.summary import RunSummary

        failed = RunSummary((), {}, cfg.shard, error=str(e), error_code=e.exit_code)
        with contextlib.suppress(HsdError):  # an unwritable folder is the error being reported
            store.write_json(store.run_summary_path(cfg.out_dir, cfg.shard), run_summary_to_json(failed))
        raise
