"""The Ray Data stages of `--engine ray`: the same prepare and verify as the local runner.

Rows are pages: {doc, page, name, path}. Prepare runs as CPU tasks, `RayConfig.batch` pages per
task (a page group: a long document is spread over many tasks), with one Preparer per worker
process so the draft engines load once. Verify runs on an actor pool: each actor loads one
converter (one target; on a GPU when the cluster has GPUs) and verifies pages one by one with
`verify.verify_page`. What crosses the object store is pickled: the stripped PreparedPage (or the
exception its preparation raised), then the `Verified` result with its message lines.
"""

from __future__ import annotations

import os
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from hsd_cli.config import RunConfig
from hsd_cli.errors import HsdError
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer, strip_layer
from hsd_cli.pipeline.verify import cause, verify_stream

Batch = dict[str, np.ndarray]
FAULT_ENV = "HSD_RAY_FAULT"  # tests: "NAME:PAGE[:ONCE_FILE]" kills the verify worker on that page

_PREPARERS: dict[PrepareConfig, Preparer] = {}  # per worker process: draft engines load once


class PrepareFailed(HsdError):
    """A preparation error that does not pickle, carried as its one-line cause."""


def prepare_batch(batch: Batch, cfg: PrepareConfig) -> Batch:
    """Render and draft each page of the batch (CPU); a failure travels as the exception."""
    preparer = _PREPARERS.get(cfg)
    if preparer is None:
        preparer = _PREPARERS[cfg] = Preparer(cfg)
    out = []
    for path, page in zip(batch["path"], batch["page"], strict=True):
        try:
            item: object = strip_layer(preparer(Path(os.fsdecode(path)), int(page)))
        except Exception as e:  # the page's own failure, recorded by verify
            item = e
        out.append(_dumps(item))
    return {**_keys(batch), "prepared": _objects(out)}


class VerifyStage:
    """One actor: one converter (the model loads once), pages verified one at a time; the
    engine subclasses it with `cfg` set."""

    cfg: RunConfig

    def __init__(self) -> None:
        from hsd_cli.driver.choose import converter_for

        self.converter = converter_for(self.cfg)  # the model loads on the actor's first page

    def __call__(self, batch: Batch) -> Batch:
        def pages():  # read as the actor's batch has places: its pages share forward passes
            rows = zip(batch["name"], batch["path"], batch["page"], batch["prepared"], strict=True)
            for name, path, page, blob in rows:
                source = Path(os.fsdecode(path))
                _fault(source.name, int(page))
                yield str(name), source, int(page), pickle.loads(blob)

        # The driver writes no figures: the page images stay here.
        out = [pickle.dumps(replace(v, image=None)) for v in verify_stream(self.converter, pages())]
        return {"doc": batch["doc"], "page": batch["page"], "verified": _objects(out)}


def _keys(batch: Batch) -> Batch:
    return {k: batch[k] for k in ("doc", "page", "name", "path")}


def _objects(items: list[Any]) -> np.ndarray:
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    return arr


def _dumps(item: object) -> bytes:
    try:
        blob = pickle.dumps(item)
        pickle.loads(blob)  # some exception types pickle but cannot be rebuilt
        return blob
    except Exception:  # any: the cause travels as text
        return pickle.dumps(PrepareFailed(cause(item) if isinstance(item, BaseException) else repr(item)))


def _fault(name: str, page: int) -> None:
    """Fault injection for tests: exit this worker process on the named page (once, when a
    marker file is given: the marker is created first)."""
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return
    want, _, rest = spec.partition(":")
    number, _, marker = rest.partition(":")
    if want != name or int(number) != page:
        return
    if marker:
        if os.path.exists(marker):
            return
        Path(marker).touch()
    os._exit(1)
