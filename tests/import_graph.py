"""The package's imports, read from its source with ast (nothing is imported, nothing runs).

Every import counts wherever it stands: at the top, inside a function, under `if TYPE_CHECKING:`;
relative imports are resolved against the importing module's package.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "hsd_cli"


def imports(source: str, package: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, module, names) for every import in `source`; `names` are what `from module import`
    takes (empty for `import module`). `package` is the importing module's package."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(p for p in (base, node.module or "") if p)
            out.append((node.lineno, module, tuple(alias.name for alias in node.names)))
    return out


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) for every import anywhere in `source`, nested ones included; relative ones resolved."""
    return [(line, module) for line, module, _ in imports(source, package)]


def package_modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted name -> file of every module of the package (a package is its __init__.py)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = [root.name, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def own_package(name: str, path: Path) -> str:
    """The package a module's relative imports start from."""
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def module_imports(modules: dict[str, Path]) -> dict[str, list[tuple[int, str]]]:
    """Per module, (line, module of the package) for each import of one of them.

    `from a import b` names the module a.b when there is one, else a itself; `import a.b` names
    a.b. A package's __init__ counts only where it is imported itself, not for its submodules.
    """
    out: dict[str, list[tuple[int, str]]] = {}
    for name, path in modules.items():
        found = []
        for line, module, names in imports(path.read_text(), own_package(name, path)):
            subs = [f"{module}.{n}" for n in names if f"{module}.{n}" in modules]
            if subs:
                found += [(line, sub) for sub in subs]
            if module in modules and len(subs) < len(names or (None,)):
                found.append((line, module))
        out[name] = found
    return out
