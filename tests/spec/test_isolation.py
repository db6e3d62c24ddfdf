"""The speculative core knows no model: no transformers import, no family names."""

import re
from pathlib import Path

SPEC = Path(__file__).resolve().parents[2] / "hsd_cli" / "spec"
FORBIDDEN = re.compile(r"transformers|qwen|hunyuan|paddle|glm|lighton|deepseek|dots", re.I)


def test_spec_imports_only_torch_and_core_records():
    for path in SPEC.glob("*.py"):
        for line in path.read_text().splitlines():
            if line.startswith(("import ", "from ")):
                assert not FORBIDDEN.search(line), f"{path.name}: {line}"
                mod = line.split()[1]
                assert mod.split(".")[0] in {"__future__", "bisect", "collections", "dataclasses", "enum", "typing", "torch", "hsd_cli"}, line
                if mod.startswith("hsd_cli"):
                    assert mod.startswith(("hsd_cli.spec", "hsd_cli.config", "hsd_cli.datatypes")), line


def test_spec_names_no_model_family():
    for path in SPEC.glob("*.py"):
        assert not FORBIDDEN.search(path.read_text()), path.name
