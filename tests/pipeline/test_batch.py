"""Issue 13: batch runs that cannot mix up documents, escape the output folder, or die on one
name. One test (or a few) per group of the issue; the CLI-only groups (8's usage error, 10,
12's help) are in cli/test_batch_cli.py, the table in report/test_table.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import pytest
from fakes import FakeConverter, fail_first_render, make_pdf
from PIL import Image

from hsd_cli.config import RunConfig
from hsd_cli.errors import InputError
from hsd_cli.pages import render
from hsd_cli.pipeline.local import run
from hsd_cli.report import store
from hsd_cli.report.summary import DocStatus, RunSummary

REPO = Path(__file__).resolve().parents[2]


def convert(
    out: Path, inputs: list[Path | str], fake: FakeConverter | None = None, stdin: str = "", **kw: object
) -> tuple[RunSummary, str]:
    cfg = RunConfig(inputs=tuple(Path(p) for p in inputs), out_dir=out, method="draft", **kw)
    err = io.StringIO()
    summary = run(cfg, fake or FakeConverter(), err=err, quiet=True, stdin=io.StringIO(stdin))
    return summary, err.getvalue()


def sources(out: Path) -> dict[str, str]:
    """Markdown file -> the source its page reports were made from."""
    found = {}
    for md in out.rglob("*.md"):
        page = json.loads((md.with_suffix("") / "page-0001.json").read_text())
        assert f"# {Path(page['source']).stem} p1" in md.read_text()
        found[md.relative_to(out).as_posix()] = page["source"]
    return found


def test_1_adding_a_same_name_file_never_mixes_documents(tmp_path: Path) -> None:
    """Rerun with a third report.pdf: every Markdown still holds its own source's pages, and
    the two earlier documents are resumed, not redone or swapped."""
    docs = [make_pdf(tmp_path / f"docs/{y}/report.pdf", n) for y, n in ((2023, 1), (2024, 2))]
    out = tmp_path / "o"
    convert(out, ["-"], stdin="".join(f"{p}\n" for p in docs))
    before = sources(out)
    docs.append(make_pdf(tmp_path / "docs/2022/report.pdf", 3))
    fake = FakeConverter()
    summary, _ = convert(out, ["-"], fake, stdin="".join(f"{p}\n" for p in docs))
    after = sources(out)
    assert summary.exit_code == 0 and len(after) == 3 and before.items() <= after.items()
    assert sorted(fake.calls) == [("report.pdf", 1), ("report.pdf", 2), ("report.pdf", 3)]  # 2022 only
    for md, source in after.items():  # page counts match: nothing of another document
        pages = {"2022": 3, "2023": 1, "2024": 2}[Path(source).parent.name]
        assert (out / md).read_text().count("# report p") == pages
        assert len(list((out / md).with_suffix("").glob("page-*.json"))) == pages


def test_1_a_replaced_source_is_converted_again(tmp_path: Path) -> None:
    """Same path, other content: the resume key holds the source's identity."""
    pdf, out = make_pdf(tmp_path / "d.pdf", 1), tmp_path / "o"
    convert(out, [pdf])
    make_pdf(pdf, 2)
    fake = FakeConverter()
    convert(out, [pdf], fake)
    assert fake.calls == [("d.pdf", 1), ("d.pdf", 2)]


def test_2_dot_names_stay_below_the_output_folder(tmp_path: Path) -> None:
    """`...pdf` given directly and on stdin: nothing is written outside -o."""
    src = tmp_path / "src"
    dots = make_pdf(src / "...pdf", 1)
    out = tmp_path / "work" / "o"
    out.mkdir(parents=True)
    summary, err = convert(out, [dots, "-"], stdin=f"{make_pdf(src / '.pdf', 1)}\n")
    assert summary.exit_code == 0, err
    assert os.listdir(tmp_path / "work") == ["o"] and len(list(out.glob("*.md"))) == 2


def test_3_a_non_utf8_name_is_one_more_document(tmp_path: Path) -> None:
    """A file name that is not UTF-8 in the input tree: every document converts, JSON is valid."""
    src = tmp_path / "in"
    make_pdf(src / "ok.pdf", 1)
    os.rename(make_pdf(src / "x.pdf", 1), src / os.fsdecode(b"x\xff.pdf"))  # MuPDF saves to UTF-8 names only
    summary, err = convert(tmp_path / "o", [src])
    assert summary.exit_code == 0 and err == "" and len(summary.documents) == 2
    data = json.loads((tmp_path / "o" / "run-summary.json").read_text(encoding="utf-8"))
    assert sorted(Path(d["source"]).name for d in data["documents"]) == ["ok.pdf", "x\\xff.pdf"]


def test_4_a_symlink_loop_fails_alone(tmp_path: Path) -> None:
    src = tmp_path / "in"
    make_pdf(src / "ok.pdf", 1)
    (src / "loop.pdf").symlink_to("loop.pdf")
    summary, err = convert(tmp_path / "o", [src])
    assert summary.exit_code == 1 and err.count("\n") == 1 and "symbolic links" in err
    assert (tmp_path / "o" / "ok.md").exists()


@pytest.fixture
def deny(monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """Make one folder unwritable: chmod when not root, else a faked EACCES (root ignores modes)."""

    def make(folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            folder.chmod(0o500)
            return
        real = tempfile.mkstemp

        def mkstemp(*args, dir=None, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202, A002
            if dir is not None and Path(dir) == folder:
                raise PermissionError(13, "Permission denied")
            return real(*args, dir=dir, **kw)

        monkeypatch.setattr(store.tempfile, "mkstemp", mkstemp)

    return make


def test_5_output_errors_fail_one_document(tmp_path: Path, deny) -> None:  # noqa: ANN001
    """An unwritable per-document folder, a name taken by a file, a folder where the Markdown
    goes, and a 240-character stem: the others convert, one line each, run summary written."""
    src, out = tmp_path / "in", tmp_path / "o"
    for name in ("a", "b", "c", "d", "x" * 240):
        make_pdf(src / f"{name}.pdf", 2)
    deny(out / "a")
    (out / "b").write_text("taken")  # b's report folder
    (out / "c.md").mkdir()  # c's Markdown
    summary, err = convert(out, [src])
    status = {d.key[:1]: d.status for d in summary.documents}
    assert status == {
        "a": DocStatus.FAILED,
        "b": DocStatus.FAILED,
        "c": DocStatus.FAILED,
        "d": DocStatus.OK,
        "x": DocStatus.OK,
    }
    assert err.count("\n") == 3 and "cannot write" in err and "Traceback" not in err
    assert json.loads((out / "run-summary.json").read_text())["documents_failed"] == 3
    assert (out / "d.md").exists() and len(list(out.glob("x*.md"))) == 1


def test_6_two_runs_on_one_folder_cooperate(tmp_path: Path) -> None:
    """`hsd convert in -o o --force` twice at once: both succeed, no write error, whole outputs."""
    src = tmp_path / "in"
    for i in range(3):
        make_pdf(src / f"d{i}.pdf", 2)
    env = {**os.environ, "PYTHONPATH": str(REPO), "HSD_FAKE_DELAY": "0.05"}
    cmd = [
        sys.executable,
        str(REPO / "tests" / "fakes.py"),
        "convert",
        str(src),
        "-o",
        str(tmp_path / "o"),
        "--force",
        "--quiet",
    ]
    for _ in range(2):
        procs = [subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        errors = [p.communicate(timeout=120)[1] for p in procs]
        assert [p.returncode for p in procs] == [0, 0], errors
        assert not any("error" in e for e in errors)
    for i in range(3):
        assert (tmp_path / "o" / f"d{i}.md").read_text().count(f"# d{i} p") == 2
    assert not list((tmp_path / "o").rglob("*.tmp"))


def test_7_dpi_is_part_of_the_resume_key(tmp_path: Path) -> None:
    """A 36-dpi result is not kept when the rerun asks for 300 dpi."""
    pdf, out = make_pdf(tmp_path / "d.pdf", 1), tmp_path / "o"
    convert(out, [pdf], dpi=36)
    fake = FakeConverter()
    convert(out, [pdf], fake, dpi=300)
    assert fake.calls == [("d.pdf", 1)]
    assert json.loads((out / "d" / "page-0001.json").read_text())["options"]["dpi"] == 300


def test_8_pages_reruns_keep_the_document_whole(tmp_path: Path) -> None:
    """--pages 2 keeps pages 1 and 3 in the Markdown; --pages 9 leaves summary.json alone;
    --pages 1-2 converts a one-page document."""
    pdf, out = make_pdf(tmp_path / "d.pdf", 3), tmp_path / "o"
    convert(out, [pdf])
    whole = (out / "d.md").read_text()
    summary, _ = convert(out, [pdf], pages="2", force=True)
    assert (out / "d.md").read_text() == whole and summary.exit_code == 0
    good = (out / "d" / "summary.json").read_text()
    summary, err = convert(out, [pdf], pages="9")
    assert summary.exit_code == 0 and err == "" and summary.documents[0].status is DocStatus.SKIPPED
    assert (out / "d" / "summary.json").read_text() == good
    one = make_pdf(tmp_path / "one.pdf", 1)
    summary, _ = convert(out, [one, pdf], pages="1-2")
    assert summary.exit_code == 0 and "one p1" in (out / "one.md").read_text()


def test_9_file_modes_follow_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        convert(tmp_path / "o", [make_pdf(tmp_path / "d.pdf", 1)])
    finally:
        os.umask(old)
    files = [p for p in (tmp_path / "o").rglob("*") if p.is_file()]
    assert len(files) >= 4 and {p.stat().st_mode & 0o777 for p in files} == {0o644}


def test_11_stale_temps_of_a_killed_run_are_removed(tmp_path: Path) -> None:
    """kill -9 leaves out/.<doc>.md.XXXXXXXX.tmp; the rerun of that document removes it."""
    pdf, out = make_pdf(tmp_path / "d.pdf", 1), tmp_path / "o"
    convert(out, [pdf])
    (out / ".d.md.k9x2ab7q.tmp").write_text("torn")
    (out / "d" / ".page-0001.json.k9x2ab7q.tmp").write_text("{")
    convert(out, [pdf])
    assert not list(out.rglob("*.tmp"))


def test_11_page_named_once_and_honest_hints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No "page 1: page 1:"; a page refused names its dpi; no PIL warning over its limit."""
    fail_first_render(monkeypatch, "page 1: corrupted image data (test)")
    _, err = convert(tmp_path / "o", [make_pdf(tmp_path / "d.pdf", 2)])
    assert err.count("page 1") == 1
    monkeypatch.undo()
    with pytest.raises(InputError, match=f"at {render.MIN_DPI} dpi"):
        render._check_pixels(20_000, 20_000, 0, render.MIN_DPI)
    big = tmp_path / "big.png"
    Image.new("1", (15_000, 15_000)).save(big)  # 225 MP, 1 bit: small on disk, refused unread
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(InputError, match="too large"):
            list(render.iter_pages(big))
    assert not [w for w in caught if "DecompressionBomb" in w.category.__name__]


def test_12_a_line_per_document_outside_a_terminal(tmp_path: Path) -> None:
    """CI logs: one progress line per converted document on a non-terminal stderr."""
    src = tmp_path / "in"
    for name in ("a", "b"):
        make_pdf(src / f"{name}.pdf", 1)
    (src / "bad.pdf").write_text("notes")
    err = io.StringIO()
    cfg = RunConfig(inputs=(src,), out_dir=tmp_path / "o", method="draft")
    run(cfg, FakeConverter(), err=err)
    lines = err.getvalue().splitlines()  # documents in key order: a, b, bad
    assert len(lines) == 3 and lines[2].startswith("hsd: error: ") and "bad.pdf" in lines[2]
    assert lines[0].startswith("hsd: [1/3] ") and lines[0].endswith(" s)") and "a.pdf: ok (1 page" in lines[0]
    assert lines[1].startswith("hsd: [2/3] ")
    quiet = io.StringIO()
    run(cfg, FakeConverter(), err=quiet, quiet=True)
    assert quiet.getvalue().count("\n") == 1  # the error line only


def test_run_summary_is_written_when_the_run_breaks(tmp_path: Path) -> None:
    """Whatever stops a run after its arguments, run-summary.json says so."""

    class Crashes(FakeConverter):
        def convert(self, prepared):  # noqa: ANN001, ANN201
            raise KeyboardInterrupt  # not a page failure: it ends the run

    with pytest.raises(KeyboardInterrupt):
        convert(tmp_path / "o", [make_pdf(tmp_path / "d.pdf", 1)], Crashes())
    data = json.loads((tmp_path / "o" / "run-summary.json").read_text())
    assert data["exit_code"] == 1 and data["error"] == "KeyboardInterrupt"
