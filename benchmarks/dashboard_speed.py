"""Speed tables of the dashboard, from `hsd bench` JSON: the summary, oracle, throughput, cost curves.

Oracle runs (`hsd bench --oracle`, one page at a time) report SR_decode: `ar`'s decode time over the
method's, drafting charged. Throughput runs (`--batch-pages`) report decode tokens per second and
pages per minute, everything counted, per batch size.
"""

from __future__ import annotations

from dashboard_format import block, device, model, num, option, table, x

COST_TOKENS = (1, 64, 256)  # tree sizes shown of a cost curve


def summary(runs: list[dict], picks: dict[str, tuple[str, tuple[int, ...]]]) -> str:
    """A line on what the rows are, then one row per (run, batch) named in `picks`: file name ->
    (section anchor, batch sizes or ())."""
    rows = []
    for run in runs:
        anchor, batches = picks[run["_name"]]
        head = [device(run), model(run)]
        where = f"[{run['_name'].removesuffix('.json')}](#{anchor})"
        tokens = option(run["command"], "--max-new-tokens")
        if isinstance(run["totals"], dict):  # an oracle run, one page at a time: totals per page kind
            auto = _method(run["totals"]["overall"], "auto")
            same = f"{auto['identical']}/{auto['compared']}"
            size = f"{auto['pages']} x {tokens}"
            rows.append([*head, size, "1", x(auto["sr_decode"]), "decode time", "-", same, where])
            continue
        for b in batches:
            ar, auto = _at(run, "ar", b), _at(run, "auto", b)
            speed = x(auto["decode_tokens_per_s"] / ar["decode_tokens_per_s"])
            ppm = f"{_ppm(auto['pages_per_min'])} / {_ppm(ar['pages_per_min'])}"
            same = f"{min(ar['identical_to_ar'], auto['identical_to_ar'])}/{auto['pages']}"
            rows.append([*head, f"{auto['pages']} x {tokens}", str(b), speed, "decode tok/s", ppm, same, where])
    columns = ("device", "model", "pages x tokens", "batch", "`auto` / `ar`", "measured as", "pages/min `auto` / `ar`")
    lead = "Each row comes from the table it links to, at that table's code and date."
    return f"{lead}\n\n" + table((*columns, "= `ar`", "table"), rows)


def oracle(runs: list[dict]) -> str:
    """Per page kind: passes, AAL and SR_decode of every method against `ar`, one page at a time."""
    run = runs[0]
    methods = [t["method"] for t in run["totals"]["overall"] if t["method"] != "ar"]
    lead = methods[-1]
    sr = "SR_decode " + " / ".join(f"`{m}`" for m in methods)
    columns = ("kind", "pages", "tokens", "`ar` passes", f"`{lead}` passes", f"`{lead}` AAL", sr)
    rows = []
    overall = run["totals"]["overall"][0]["pages"]
    for kind, totals in run["totals"].items():
        by = {t["method"]: t for t in totals}
        ar, top = by["ar"], by[lead]
        if kind != "overall" and ar["pages"] == overall:
            continue  # every page is of this kind: the overall row says it
        same = min(by[m]["identical"] for m in methods)
        rows.append(
            [
                kind,
                str(ar["pages"]),
                str(ar["tokens"]),
                str(ar["steps"]),
                str(top["steps"]),
                num(top["aal"], 2),
                " / ".join(x(by[m]["sr_decode"]) for m in methods),
                x(top["sr_e2e"]),
                num(top["t_draft"]),
                f"{same}/{top['compared']}",
            ]
        )
    return block(runs, table((*columns, f"`{lead}` SR_e2e", "drafting s", "= `ar`"), rows))


def throughput(runs: list[dict]) -> str:
    """Per run and batch size: `ar` against `auto`, decode speed, pages a minute and what a pass holds."""
    rows = []
    for run in runs:
        for b in sorted({t["batch_pages"] for t in run["totals"]}):
            rows.append(_throughput_row(_at(run, "ar", b), _at(run, "auto", b)))
    columns = ("batch", "pages", "decode tok/s `ar` / `auto`", "`auto` / `ar`", "pages/min `ar` / `auto`")
    columns += ("passes `ar` / `auto`", "rows/pass `ar` / `auto`", "`auto` tree tok/pass")
    return block(runs, table((*columns, "`auto` s/pass (priced)", "= `ar`"), rows))


def _throughput_row(ar: dict, auto: dict) -> list[str]:
    passes = auto["forward_passes"]
    return [
        str(auto["batch_pages"]),
        str(auto["pages"]),
        f"{ar['decode_tokens_per_s']:.1f} / {auto['decode_tokens_per_s']:.1f}",
        x(auto["decode_tokens_per_s"] / ar["decode_tokens_per_s"]),
        f"{_ppm(ar['pages_per_min'])} / {_ppm(auto['pages_per_min'])}",
        f"{ar['forward_passes']} / {passes}",
        f"{ar['rows_per_step']:.1f} / {auto['rows_per_step']:.1f}",
        num(auto["tree_tokens_per_step"]),
        f"{auto['pass_s'] / passes:.3f} ({auto['priced_pass_s'] / passes:.3f})",
        f"{min(ar['identical_to_ar'], auto['identical_to_ar'])}/{auto['pages']}",
    ]


def cost(runs: list[dict]) -> str:
    """Milliseconds of one step + commit against the tokens in the forward, one column per model."""
    curves = [run["curve"] for run in runs]
    columns = ("tokens in forward", *(f"{model(run)} ms (x AR step)" for run in runs))
    points = [{p["nodes"]: p for p in c["points"]} for c in curves]
    rows = [[str(k), *(_ms(p[k]) for p in points)] for k in COST_TOKENS if all(k in p for p in points)]
    batches = [{b["nodes"]: b for b in c.get("batches", [])} for c in curves]
    for n in sorted(set.intersection(*(set(b) for b in batches)))[-1:]:  # the most rows
        rows.append([f"{n} rows x 1 token", *(_ms(b[n]) for b in batches)])
    ar_ms = [p[1]["ms"] for p in points]
    prefill = [f"{c['prefill_ms']:.0f} ({c['prefill_ms'] / ms:.1f})" for c, ms in zip(curves, ar_ms, strict=True)]
    rows.append([f"prefill ({curves[0]['prompt_tokens']} tokens)", *prefill])
    return block(runs, table(columns, rows))


def engine(runs: list[dict]) -> str:
    """The decode step by engine: ms of a plain step at 1, 8 and 32 rows and of a tree at one row."""
    return block(runs, engine_table(runs[0]))


def engine_table(report: dict) -> str:
    """benchmarks/engine_step.py's report as a table, ms by engine (eager, static, graphs, ...);
    `-` where an engine was not timed at that shape."""
    figures = [("ar step", "ar_step_ms"), ("tree step", "tree_step_ms"), ("mixed step", "mixed_step_ms")]
    figures = [(name, report[fig]) for name, fig in figures if report.get(fig)]  # older reports lack mixed
    engines = list(dict.fromkeys(e for _, fig in figures for e in fig))
    rows = []
    for name, fig in figures:
        keys = dict.fromkeys(k for times in fig.values() for k in times)
        rows += [(name, "1", k, fig, k) if name == "tree step" else (name, k, "1", fig, k) for k in keys]
    cells = [[name, n, k, *(_ms_of(fig.get(e, {}), key) for e in engines)] for name, n, k, fig, key in rows]
    return table(("step", "rows", "tree tokens", *(f"{e} ms" for e in engines)), cells)


def draft_rate(runs: list[dict]) -> str:
    """Draft pages a second by where drafting's models run (benchmarks/draft_rate.py)."""
    return block(runs, draft_rate_table(runs[0]))


def draft_rate_table(report: dict) -> str:
    """benchmarks/draft_rate.py's arms: pages a second per core and per host, CPU seconds a page by
    kind, and whether each arm's drafts are ONNX Runtime's."""
    kinds = list(dict.fromkeys(k for a in report["arms"] for k in a["kinds"]))
    columns = ("arm", "workers", "pages/s per core", "pages/s per host", *(f"{k} CPU s" for k in kinds))
    rows = []
    for a in report["arms"]:
        differ = a.get("drafts_differ")
        same = "reference" if differ is None else ("yes" if not differ else f"no: {', '.join(differ)}")
        cells = [a["arm"]["name"], str(a["arm"]["workers"]), f"{a['pages_per_s_per_core']:.2f}"]
        cells += [f"{a['pages_per_s_host']:.2f}", *(num(a["kinds"].get(k, {}).get("draft_cpu_s"), 2) for k in kinds)]
        rows.append([*cells, same])
    return table((*columns, "drafts as ONNX Runtime's"), rows) + _line_probe(report.get("recognizer_lines"))


def _line_probe(probe: dict | None) -> str:
    """rec_lines.py's figures, one sentence an arm (none before the probe was run)."""
    if not probe:
        return ""
    arms = [(k, v) for k, v in probe.items() if isinstance(v, dict)]
    said = "; ".join(
        f"{name}: {a['first_ms']:.1f} ms a line at a width not seen yet ({a['cpu_ms']:.1f} CPU ms), "
        f"{a['again_ms']:.1f} ms once seen, {100 * a['frames_as_onnxruntime']:.2f}% of frames as ONNX Runtime's"
        for name, a in arms
    )
    return f"\n\nThe recogniser in torch on {probe['device']}, {probe['lines']} line widths an arm ({said})."


def cuda_tests(runs: list[dict]) -> str:
    """The lossless and batching tests run on the GPU: command, code, date, outcome."""
    rows = []
    for run in runs:
        for test in run["runs"]:
            m = test["machine"]
            rows.append([f"`{test['command']}`", f"`{test['commit']}`", m["date"][:10], m["gpu"], str(test["passed"])])
            rows[-1] += [str(test["failed"]), f"{test['wall_s']:.0f}"]
    links = ", ".join(f"[{run['_name']}](results/{run['_name']})" for run in runs)
    return f"{links}.\n\n" + table(("command", "code", "date", "GPU", "passed", "failed", "s"), rows)


def _at(run: dict, method: str, batch: int) -> dict:
    return next(t for t in run["totals"] if t["method"] == method and t["batch_pages"] == batch)


def _method(totals: list[dict], method: str) -> dict:
    return next(t for t in totals if t["method"] == method)


def _ms_of(figures: dict, key: str) -> str:
    return f"{figures[key]:.2f}" if key in figures else "-"


def _ms(point: dict) -> str:
    return f"{point['ms']:.1f} ({point['ratio_to_ar']:.2f})"


def _ppm(pages_per_min: float) -> str:
    return f"{pages_per_min:.1f}" if pages_per_min >= 10 else f"{pages_per_min:.2f}"


def host_step(runs: list[dict]) -> str:
    """Per batch size: hsd's host ms a pass by phase, per row, and what the penalty adds to a pass."""
    run = runs[0]
    cases = {(c["rows"], c["penalty"] != 1.0): c for c in run["cases"]}
    columns = ("rows", "tree width", "tokens a pass", "propose ms: align / trie / probs / sizing / linearize")
    columns += ("pack", "read", "accept", "commit", "host ms", "host ms a row", "forward + argmax ms")
    columns += ("penalty ms (share of a pass)",)
    rows = []
    for n in sorted({rows for rows, _ in cases}):
        off, on = cases[(n, False)], cases[(n, True)]
        ms = off["phases_ms"]
        propose = " / ".join(f"{ms[p]:.2f}" for p in ("align", "trie", "probs", "sizing", "linearize"))
        phases = [f"{ms[p]:.2f}" for p in ("pack", "readback", "accept", "commit")]
        device = ms["forward"] + ms["argmax"]
        rows.append([str(n), f"{off['tree_width']:.0f}", f"{off['tokens_per_pass']:.0f}", propose, *phases])
        rows[-1] += [f"{off['host_ms']:.2f}", f"{off['host_ms_per_row']:.3f}", f"{device:.0f}"]
        # The penalty adds its own phase to a pass (the loops build the same trees): against the pass without it.
        penalty = on["phases_ms"]["penalty"]
        rows[-1].append(f"{penalty:.1f} ({100 * penalty / off['pass_ms']:.1f}%)")
    return block(runs, table(columns, rows))
