"""What --images and --format json add per page (issue 12), timed in-process on prepared pages.

Each page is prepared once (render + drafts: the same for both settings); then the write-side
work is timed with and without the flags: blocks + Markdown (always) vs. blocks + figure crops +
links + document JSON. Usage: python benchmarks/outputs_cost.py CORPUS_DIR OUT.json [--pages N]
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from hsd_cli.methods.draft import DraftConverter
from hsd_cli.pages.inputs import discover
from hsd_cli.pipeline.prepare import PrepareConfig, Preparer
from hsd_cli.report import store
from hsd_cli.report.document import document_to_json
from hsd_cli.report.figures import save_figures
from hsd_cli.report.markdown import render_document


def _time(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(corpus: Path, out: Path, limit: int) -> None:
    prep, conv = Preparer(PrepareConfig()), DraftConverter()
    docs = [d for d in discover((corpus,), None, None) if not d.error]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for doc in docs:
            if len(rows) >= limit:
                break
            try:
                page = prep(doc.path, 1)
            except Exception:  # noqa: BLE001 - edge-case inputs (encrypted, broken) are not timed here
                continue
            result = conv.convert(page)
            md = Path(tmp) / "x.md"

            def plain():
                store.write_text(md, render_document([conv.convert(page)]))

            def flags():
                r = save_figures(conv.convert(page), page.page.image, Path(tmp) / "x", "x")
                store.write_text(md, render_document([r]))
                store.write_json(Path(tmp) / "x.json", document_to_json(str(doc.path), "x.md", [r]))

            figures = sum(b.kind == "figure" for b in result.blocks)
            rows.append(
                {
                    "doc": doc.key,
                    "blocks": len(result.blocks),
                    "figures": figures,
                    "t_prepare": page.t_render + page.t_draft,
                    "t_plain": _time(plain),
                    "t_flags": _time(flags),
                }
            )
            print(json.dumps(rows[-1]), file=sys.stderr)
    n = len(rows)
    summary = {
        "pages": n,
        "figures": sum(r["figures"] for r in rows),
        "mean_t_prepare_s": sum(r["t_prepare"] for r in rows) / n,
        "mean_t_plain_ms": 1000 * sum(r["t_plain"] for r in rows) / n,
        "mean_t_flags_ms": 1000 * sum(r["t_flags"] for r in rows) / n,
        "mean_added_ms": 1000 * sum(r["t_flags"] - r["t_plain"] for r in rows) / n,
        "max_added_ms": 1000 * max(r["t_flags"] - r["t_plain"] for r in rows),
    }
    out.write_text(json.dumps({"summary": summary, "pages": rows}, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    args = sys.argv[1:]
    limit = int(args[args.index("--pages") + 1]) if "--pages" in args else 20
    main(Path(args[0]), Path(args[1]), limit)
