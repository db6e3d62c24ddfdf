"""`make_tiny_model.py --tokenizer`: a tiny Qwen-family model on the real Qwen vocabulary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tokenizers import Tokenizer

from tests.make_tiny_model import build_tiny_model

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "tokenizers" / "qwen3"


@pytest.mark.skipif(not (REAL / "tokenizer.json").is_file(), reason="the shared Qwen tokenizer is not here")
def test_tiny_qwen_uses_the_real_vocabulary_and_vision_ids(tmp_path: Path):
    out = build_tiny_model("qwen2_5_vl", tmp_path / "m", tokenizer=REAL)
    config = json.loads((out / "config.json").read_text())
    assert (config["image_token_id"], config["vision_start_token_id"]) == (151655, 151652)
    assert config["text_config"]["vocab_size"] == 151936
    text = "<table><tr><td>1.5</td></tr></table>"
    saved, real = Tokenizer.from_file(str(out / "tokenizer.json")), Tokenizer.from_file(str(REAL / "tokenizer.json"))
    assert saved.encode(text).ids == real.encode(text).ids


def test_a_family_with_a_vocabulary_of_its_own_refuses_it(tmp_path: Path):
    with pytest.raises(ValueError, match="tokenizer of its own"):
        build_tiny_model("hunyuan_vl", tmp_path / "m", tokenizer=REAL)
