"""Imports flow one way: no module of hsd_cli/ imports a folder above its own, and none imports
itself back through others. Type-only and nested imports count like any other."""

from __future__ import annotations

import graphlib
from pathlib import Path

from import_graph import PACKAGE, module_imports, package_modules

# Top to bottom. A module may import its own folder and the folders below it; "" is the base,
# the modules directly under hsd_cli/ (datatypes, config, errors, metrics), which every folder uses.
ORDER = (
    "__main__",
    "cli",
    "bench",
    "pipeline",
    "driver",
    "methods",
    "report",
    "targets",
    "spec",
    "drafts",
    "pages",
    "",
)
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


def folder(path: Path, root: Path = PACKAGE) -> str:
    """The folder of hsd_cli/ a file belongs to; "__main__" for the entry point, "" for the base."""
    parts = path.relative_to(root).parts
    if len(parts) > 1:
        return parts[0]
    return "__main__" if path.stem == "__main__" else ""


def arrows_up(modules: dict[str, Path], root: Path = PACKAGE) -> list[str]:
    """ "module:line -> module" for each import of a folder above the importer's."""
    rank = {name: ORDER.index(folder(path, root)) for name, path in modules.items()}
    return [
        f"{name}:{line} -> {target}"
        for name, found in module_imports(modules).items()
        for line, target in found
        if rank[target] < rank[name]
    ]


def circle(modules: dict[str, Path]) -> list[str]:
    """One import circle between modules (its modules in order), or [] when there is none."""
    graph = {name: {target for _, target in found} - {name} for name, found in module_imports(modules).items()}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        return list(e.args[1])
    return []


def test_every_folder_has_a_place_in_the_order():
    folders = {folder(path) for path in package_modules().values()}
    assert folders <= set(ORDER), f"add {sorted(folders - set(ORDER))} to ORDER, where its imports put it"


def test_no_module_imports_a_folder_above_its_own():
    up = arrows_up(package_modules())
    assert not up, "\n".join(up)


def test_no_import_circle():
    found = circle(package_modules())
    assert not found, " -> ".join(found)


def test_the_architecture_page_states_this_order():
    arrow = " -> ".join(f for f in ORDER if f not in ("__main__", ""))
    assert f"`{arrow} -> datatypes, config, errors, metrics`" in ARCHITECTURE.read_text()


def write(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return package_modules(root)


def test_the_check_sees_type_only_nested_and_relative_imports(tmp_path):
    root = tmp_path / "hsd_cli"
    files = {
        "__init__.py": "",
        "__main__.py": "from hsd_cli.cli import app\n",
        "datatypes.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from hsd_cli.spec import tree\n",
        "cli/__init__.py": "",
        "cli/app.py": "import hsd_cli.drafts.base\n",
        "spec/__init__.py": "",
        "spec/tree.py": "def f():\n    from ..drafts import base\n",
        "drafts/__init__.py": "",
        "drafts/base.py": "from . import other\nfrom hsd_cli import datatypes\n",
        "drafts/other.py": "X = 1\n",
    }
    modules = write(root, files)
    imported = module_imports(modules)
    assert imported["hsd_cli.datatypes"] == [(3, "hsd_cli.spec.tree")]  # type-only
    assert imported["hsd_cli.spec.tree"] == [(2, "hsd_cli.drafts.base")]  # nested and relative
    assert imported["hsd_cli.drafts.base"] == [(1, "hsd_cli.drafts.other"), (2, "hsd_cli.datatypes")]
    assert imported["hsd_cli.__main__"] == [(1, "hsd_cli.cli.app")]
    # the base sits below spec: datatypes -> spec points up, and closes a circle through drafts
    assert arrows_up(modules, root) == ["hsd_cli.datatypes:3 -> hsd_cli.spec.tree"]
    assert set(circle(modules)) == {"hsd_cli.datatypes", "hsd_cli.spec.tree", "hsd_cli.drafts.base"}
    files["datatypes.py"] = "X = 1\n"
    modules = write(root, files)
    assert arrows_up(modules, root) == [] and circle(modules) == []
