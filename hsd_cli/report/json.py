"""JSON reports: one per page (PageResult <-> dict, read back on resume), per document, per run.

Every report carries `schema_version`; a page report also carries `options`, the converter's
`options_key()` in JSON form, so resume can tell whether it was made with the same settings.
"""

from __future__ import annotations

import json
import signal
from dataclasses import asdict, fields
from typing import Any

from hsd_cli.datatypes import Block, PageResult, PageStatus, StageReport
from hsd_cli.pages.inputs import printable
from hsd_cli.report.summary import DocSummary, RunSummary, Totals, speculation_line

SCHEMA_VERSION = 1
_STAGE_FIELDS = tuple(f.name for f in fields(StageReport))
_STAGE_ADDED = {"matched": 0}  # stage fields newer than some reports: absent reads as the default
_BLOCK_FIELDS = tuple(f.name for f in fields(Block))
# The baseline's own numbers: in a report only when a baseline ran (a run without one writes
# the same keys as before they existed); `sr_steps` is derived from them.
_BASELINE = ("steps_ar", "t_decode_ar", "t_total_ar")
# Likewise only on a page that ran with speculation effectively off, after `fault`; absent reads as on.
_SPEC_OFF = {"speculation_off": False, "speculation_note": ""}
_PAGE_FIELDS = tuple(f.name for f in fields(PageResult) if f.name not in (*_BASELINE, *_SPEC_OFF))
# A page report's keys in order, with the metrics aal, sr_decode, sr_e2e (PageResult properties) in
# their places of old; markdown and blocks go last (page_to_json)
_PAGE_KEYS = (
    *_PAGE_FIELDS[: _PAGE_FIELDS.index("steps") + 1],
    "aal",
    *_PAGE_FIELDS[_PAGE_FIELDS.index("steps") + 1 : _PAGE_FIELDS.index("identical_to_ar")],
    "sr_decode",
    "sr_e2e",
    *_PAGE_FIELDS[_PAGE_FIELDS.index("identical_to_ar") :],
)


def normalize_options(options: dict[str, object]) -> dict[str, Any]:
    """The options as they read back from JSON (tuples -> lists, paths -> strings)."""
    return json.loads(json.dumps(options, default=str, sort_keys=True))


def page_to_json(result: PageResult, options: dict[str, object]) -> dict[str, Any]:
    """The page report: every PageResult field and metric, stage reports with their AAL, options."""
    data: dict[str, Any] = {"schema_version": SCHEMA_VERSION}
    for name in _PAGE_KEYS:
        value = getattr(result, name)
        if isinstance(value, StageReport):
            value = stage_to_json(value)
        elif isinstance(value, PageStatus):
            value = value.value
        elif name == "blocks":
            value = [block_to_json(b) for b in value]
        elif isinstance(value, list):
            value = list(value)
        elif isinstance(value, dict):
            value = dict(value)
        data[name] = value
        if name == "sr_e2e" and result.has_baseline:
            data.update({n: getattr(result, n) for n in (*_BASELINE, "sr_steps")})
        if name == "fault" and result.speculation_off:
            data.update({n: getattr(result, n) for n in _SPEC_OFF})
    data["source"] = printable(result.source)  # a non-UTF-8 name must not break the JSON
    data["options"] = normalize_options(options)
    data["blocks"] = data.pop("blocks")  # last: the long fields
    data["markdown"] = data.pop("markdown")
    return data


def page_from_json(data: dict[str, Any]) -> PageResult:
    """Rebuild a PageResult; ValueError/KeyError/TypeError when the report is not usable."""
    if data.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"schema_version {data.get('schema_version')!r} != {SCHEMA_VERSION}")
    kwargs = {name: data[name] for name in _PAGE_FIELDS}
    kwargs.update({name: data.get(name) for name in _BASELINE})
    kwargs.update({name: data.get(name, default) for name, default in _SPEC_OFF.items()})
    if data["sr_decode"] is not None and kwargs["t_decode_ar"] is None:
        # an earlier version stored only the ratios; its pages are redone, not rebuilt from them
        raise ValueError("page report has speedups without the baseline's times")
    kwargs["status"] = PageStatus(kwargs["status"])
    for stage in ("stage1", "stage2"):
        if kwargs[stage] is not None:
            kwargs[stage] = stage_from_json(kwargs[stage])
    kwargs["blocks"] = [block_from_json(b) for b in kwargs["blocks"]]
    return PageResult(**kwargs)


def block_to_json(block: Block) -> dict[str, Any]:
    return {**{name: getattr(block, name) for name in _BLOCK_FIELDS}, "bbox": list(block.bbox)}


def block_from_json(data: dict[str, Any]) -> Block:
    kwargs = {name: data[name] for name in _BLOCK_FIELDS}
    return Block(**{**kwargs, "bbox": tuple(kwargs["bbox"])})


def stage_to_json(stage: StageReport) -> dict[str, Any]:
    return {**asdict(stage), "aal": stage.aal}


def stage_from_json(data: dict[str, Any]) -> StageReport:
    return StageReport(**{name: data[name] if name in data else _STAGE_ADDED[name] for name in _STAGE_FIELDS})


def totals_to_json(t: Totals) -> dict[str, Any]:
    """Totals with the derived AAL and speedups (null when no baseline ran)."""
    return {
        "pages": t.pages,
        "tokens": t.tokens,
        "steps": t.steps,
        "seq_steps": t.seq_steps,
        "accepted": t.accepted,
        "aal": t.aal,
        "t_render": t.t_render,
        "t_draft": t.t_draft,
        "t_prefill": t.t_prefill,
        "t_decode": t.t_decode,
        "t_total": t.t_total,
        "tokens_per_s": t.tokens / t.t_total if t.t_total > 0 else None,
        "baseline_pages": t.baseline_pages,
        "identical_to_ar": t.identical_pages if t.baseline_pages else None,
        "speculation_off": t.speculation_off,
        "sr_decode": t.sr_decode,
        "sr_e2e": t.sr_e2e,
    }


def doc_summary_to_json(s: DocSummary, options: dict[str, object]) -> dict[str, Any]:
    """The document summary written to out/<key>/summary.json."""
    return {
        "schema_version": SCHEMA_VERSION,
        "source": printable(s.source),
        "markdown": f"{s.key}.md" if s.pages else None,
        "status": s.status.value,
        "error": s.error,
        "pages": s.pages,
        "statuses": dict(s.statuses),
        "failed_pages": list(s.failed_pages),
        "resumed": s.resumed,
        "options": normalize_options(options),
        "totals": totals_to_json(s.totals),
    }


def run_summary_to_json(s: RunSummary) -> dict[str, Any]:
    """The run summary: printed by --json and written next to the outputs."""
    docs = s.documents
    statuses: dict[str, int] = {}
    for d in docs:
        for name, count in d.statuses.items():
            statuses[name] = statuses.get(name, 0) + count
    return {
        "schema_version": SCHEMA_VERSION,
        "exit_code": s.exit_code,
        "interrupted": signal.Signals(s.interrupted_by).name if s.interrupted_by else None,
        "error": s.error or None,
        "shard": f"{s.shard[0]}/{s.shard[1]}",
        "options": normalize_options(s.options),
        "documents": [_doc_brief(d) for d in docs],
        "documents_failed": sum(d.status.value == "failed" for d in docs),
        "documents_skipped": sum(d.status.value == "skipped" for d in docs),
        "statuses": statuses,
        "resumed": sum(d.resumed for d in docs),
        "totals": totals_to_json(s.totals),
        "speculation_off": speculation_line(s.totals) or None,
    }


def _doc_brief(d: DocSummary) -> dict[str, Any]:
    return {
        "source": printable(d.source),
        "markdown": f"{d.key}.md" if d.pages else None,
        "status": d.status.value,
        "error": d.error,
        "pages": d.pages,
        "failed_pages": list(d.failed_pages),
        "tokens": d.totals.tokens,
        "aal": d.totals.aal,
    }
