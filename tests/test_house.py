"""House rules of the package layout: few top-level modules, short files, short functions."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hsd_cli"
# Everything else lives in a folder; metrics: the metric definitions both spec/ and the records use;
# cores: how a run shares the host's CPUs, which pages/, drafts/, driver/ and pipeline/ all ask.
TOP_LEVEL = {"__init__", "__main__", "config", "cores", "errors", "datatypes", "metrics"}
MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 50


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """(name, lines) of every function or method, nested ones included, longer than `limit` lines."""
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno - node.lineno + 1 > limit
    ]


def test_only_core_modules_at_top_level():
    extra = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem not in TOP_LEVEL)
    assert not extra, f"top-level modules outside a folder: {extra}"


def test_no_file_over_the_line_limit():
    long = [
        f"{p.relative_to(PACKAGE)}: {n}" for p in sorted(PACKAGE.rglob("*.py")) if (n := _lines(p)) > MAX_FILE_LINES
    ]
    assert not long, long


def test_no_function_over_the_line_limit():
    long = [
        f"{p.relative_to(PACKAGE)}: {name} ({n} lines)"
        for p in sorted(PACKAGE.rglob("*.py"))
        for name, n in long_functions(p.read_text(encoding="utf-8"))
    ]
    assert not long, long


def test_the_function_check_counts_decorators_out_and_nested_functions_in():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))  # def line + 50 = 51 lines
    source = f"@staticmethod\ndef outer():\n{body}\n    async def inner():\n        return 1\n"
    assert long_functions(source) == [("outer", MAX_FUNCTION_LINES + 3)]
    assert long_functions("def short():\n    return 1\n") == []


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())
