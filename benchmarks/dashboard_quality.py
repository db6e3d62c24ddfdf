"""Dashboard tables that are not end-to-end speed: drafts, acceptance, and the measurements behind
design choices (attention kernel, weight layout, knob defaults, the Ray engine)."""

from __future__ import annotations

from dashboard_format import block, model, num, table, x

GEMM_TOKENS = ("1", "2", "8", "64")  # tree sizes shown of the weight-layout curves


def draft_quality(runs: list[dict]) -> str:
    """Per document kind: NED of the draft Markdown against the truth, olmOCR-bench tests passed,
    and drafting's CPU seconds a page before and after the speed run's change (draft_speed.py)."""
    run, speed = runs[0], runs[1]["kinds"]
    rows = []
    for kind, s in run["summary"]["kinds"].items():
        if kind == "bad input":
            continue
        passed, total = s["tests_draft"]
        tests = f"{passed}/{total}" if total else "-"
        rows.append([kind, str(s["documents"]), num(s["ned_draft"], 3), tests, _cpu(speed.get(kind))])
    timing = run["summary"]["timing"]
    seconds = ", ".join(f"`{source}` {t['t_draft']:.3f} s ({t['pages']} pages)" for source, t in timing.items())
    same = "identical" if runs[1]["markdown"]["identical"] else "**differs**"
    columns = ("kind", "documents", "NED (0 = exact)", "olmOCR-bench tests passed", "draft CPU s/page (pages)")
    note = f" Drafting a page: {seconds}. CPU s/page `{runs[1]['baseline']}` -> now, Markdown {same}."
    return block(runs, table(columns, rows), note)


def _cpu(kind: dict | None) -> str:
    if kind is None:
        return "-"
    return f"{kind['before_cpu_s']:.2f} -> {kind['after_cpu_s']:.2f} ({kind['pages']}), {x(kind['after_over_before'])}"


def olmocr(runs: list[dict]) -> str:
    """olmOCR-bench's own scorer, one set a run (the dev corpus's olmOCR-bench pages, the generated
    set): hsd's drafts beside a peer, tests passed per type (per template: the JSON)."""
    types = ("present", "absent", "order", "table", "math", "baseline")
    rows = [
        [_set_name(run["bench"]), f"`{name}`", _pct(s["tests_jsonl"]), *(_pct(s["types"].get(t)) for t in types)]
        + [f"{s['headline_score_pct']}%"]
        for run in runs
        for name, s in run["systems"].items()
    ]
    return block(runs, table(("set", "system", "tests passed", *types, "scorer headline"), rows))


def _set_name(bench: str) -> str:
    return {"CORPUS/olmocr_bench": "dev pages", "CORPUS_GEN/dev": "generated dev"}.get(bench, f"`{bench}`")


def _pct(count: str | None) -> str:
    """ "311/322 (97%)"; "-" for a type the set has no test of."""
    if not count:
        return "-"
    passed, total = map(int, count.split("/"))
    return f"{count} ({100 * passed // total}%)" if total else count


def acceptance(runs: list[dict]) -> str:
    """Forward passes of each method in the flat regime (every tree and Stage-1 batch priced as one AR step)."""
    run = runs[0]
    rows = []
    for kind, totals in run["totals"].items():
        by = {t["method"]: t for t in totals}
        page, hsd, auto = by["page"], by["hsd"], by["auto"]
        rows.append(
            [
                kind,
                str(page["pages"]),
                str(page["tokens"]),
                str(by["ar"]["steps"]),
                f"{page['steps']}, {page['aal']:.2f}",
                f"{hsd['steps']} ({hsd['stage1_steps']}), {hsd['aal']:.2f}",
                x(auto["sr_steps"]),
                f"{hsd['steps'] / page['steps']:.3f}",
                f"{min(t['identical'] for t in (page, hsd, auto))}/{page['compared']}",
            ]
        )
    columns = ("kind", "pages", "tokens", "`ar` passes", "`page` passes, AAL", "`hsd` passes (Stage 1), AAL")
    return block(runs, table((*columns, "`auto` SR_steps", "`hsd` / `page` passes", "= `ar`"), rows))


def attention_fold(runs: list[dict]) -> str:
    """Masked steps with transformers' SDPA against the folded grouped heads, one column per model."""
    columns = ("rows x tree tokens", *(f"{model(run)} transformers -> folded ms" for run in runs))
    steps = [{(s["rows"], s["tree_tokens"]): s for s in run["steps"]} for run in runs]
    rows = [
        [f"{r} x {k}", *(f"{s[r, k]['transformers_s'] * 1e3:.0f} -> {s[r, k]['folded_s'] * 1e3:.0f}" for s in steps)]
        for r, k in steps[0]
    ]
    return block(runs, table(columns, rows))


def gemm_layout(runs: list[dict]) -> str:
    """Seconds of one tree step by linear-weight layout (the checkpoint's, column-major, oneDNN-packed)."""
    run = runs[0]
    rows = [
        [k, *(f"{run[layout][k]:.3f}" for layout in ("row_major", "column_major", "packed"))]
        + [x(run["row_major"][k] / run["packed"][k])]
        for k in GEMM_TOKENS
    ]
    return block(runs, table(("tree tokens", "row-major s", "column-major s", "packed s", "row / packed"), rows))


def ray(runs: list[dict]) -> str:
    """`hsd convert --method draft` on the local engine and on a local Ray instance."""
    run = runs[0]
    same = "identical" if run["identical_markdown"] else "**differs**"
    rows = [
        [f"`{e}`", str(r["documents"]), str(r["pages"]), f"{r['wall_s']:.0f}", num(r["pages_per_min"])]
        + [f"{r['render_s_per_page']:.3f}", f"{r['draft_s_per_page']:.2f}", same]
        for e, r in ((e, run[e]) for e in ("local", "ray"))
    ]
    columns = ("engine", "documents", "pages", "wall s", "pages/min", "render s/page", "draft s/page", "Markdown")
    return block(runs, table(columns, rows))
