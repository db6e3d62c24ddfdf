"""PyMuPDF's layout model (pymupdf-layout) as hsd runs it: its ONNX sessions held to the threads
hsd gives it, on flushed models (pages/onnx_models.py), and run once per page."""

from __future__ import annotations

import weakref

import pymupdf

from hsd_cli.pages import onnx_models

_loaded: list[int | None] = []  # the threads of the layout function `load` put in place, once it has


def load(threads: int | None) -> None:
    """Have page.get_layout (hsd's layout regions, and find_tables') run pymupdf-layout's model
    with its sessions on `threads` threads (None: onnx_models.ort_threads(); where that is None
    too, ONNX Runtime's default), once per page."""
    threads = threads or onnx_models.ort_threads()
    if _loaded and (threads is None or _loaded[0] == threads):
        return
    import pymupdf.layout

    # `import pymupdf` loads the model as pymupdf.layout.activate() does, its three sessions
    # opened without options: each spins a thread on every core of the machine, whatever share
    # of them this process drafts on (one thread: 1.21 -> 0.85 CPU s a page). It is loaded again
    # with hsd's options and put where activate() puts it; the first one's sessions are freed.
    predict = pymupdf._get_layout
    if threads is not None:
        with onnx_models.sessions_as_hsd_runs_them(threads):
            predict = pymupdf.layout.DocumentLayoutAnalyzer.get_model().predict
    pymupdf._get_layout = once_per_page(predict)
    _loaded[:] = [threads]


def once_per_page(predict):
    """`predict(page, **options)`, run once per page object and options: find_tables asks for the
    page's layout again for each table box and strategy, and the model is most of a born-digital
    page's drafting (35 dev pages: 31.5 -> 19.9 CPU s, the same drafts)."""
    done: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def layout(page: pymupdf.Page, **options):
        key = tuple(sorted(options.items()))
        answers = done.setdefault(page, {})
        if key not in answers:
            answers[key] = predict(page, **options)
        return answers[key]

    return layout
