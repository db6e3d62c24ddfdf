"""The speculative core knows no model: it imports only the standard library, torch, its own config
and the metric definitions."""

import re
import sys
from pathlib import Path

from import_graph import imported_modules

SPEC = Path(__file__).resolve().parents[2] / "hsd_cli" / "spec"
FORBIDDEN = re.compile(r"transformers|qwen|hunyuan|paddle|glm|lighton|deepseek|dots", re.I)
# hsd_cli.metrics: the metric definitions, standard library only; hsd_cli.datatypes would tie the
# loop to page records
ALLOWED_OWN = ("hsd_cli.config", "hsd_cli.metrics", "hsd_cli.spec")


def disallowed(mod: str) -> bool:
    top = mod.split(".")[0]
    if top in sys.stdlib_module_names or top == "torch":
        return False
    return not any(mod == own or mod.startswith(own + ".") for own in ALLOWED_OWN)


def test_spec_imports_only_stdlib_torch_and_its_config():
    bad = [
        f"{path.name}:{line}: {mod}"
        for path in sorted(SPEC.glob("*.py"))
        for line, mod in imported_modules(path.read_text(), "hsd_cli.spec")
        if disallowed(mod) or FORBIDDEN.search(mod)
    ]
    assert not bad, bad


def test_the_check_sees_nested_and_relative_imports():
    source = "import torch\ndef f():\n    if True:\n        from transformers import AutoModel\nfrom . import tree\n"
    mods = imported_modules(source, "hsd_cli.spec")
    assert sorted(mods) == [(1, "torch"), (4, "transformers"), (5, "hsd_cli.spec")]
    assert [m for _, m in mods if disallowed(m)] == ["transformers"]
    assert disallowed("hsd_cli.datatypes") and disallowed("hsd_cli.configx") and not disallowed("hsd_cli.config")


def test_spec_names_no_model_family():
    for path in SPEC.glob("*.py"):
        assert not FORBIDDEN.search(path.read_text()), path.name
