"""ONNX Runtime sessions as hsd runs them: denormal weights flushed once into the cache, and no
session, hsd's or a library's, running more threads than hsd gives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from hsd_cli.pages import onnx_models

SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
DENORMAL = np.float32(1e-40)


def tiny_model(path: Path, weights: np.ndarray, bias: np.ndarray) -> Path:
    """y = x * weights + bias: weights an initializer, bias a Constant node."""
    nodes = [
        helper.make_node("Constant", [], ["b"], value=numpy_helper.from_array(bias, "b")),
        helper.make_node("Mul", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["y"]),
    ]
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "tiny", [io[0]], [io[1]], [numpy_helper.from_array(weights, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    return path


def values(path: Path) -> tuple[np.ndarray, np.ndarray]:
    model = onnx.load(str(path))
    (bias,) = [a.t for n in model.graph.node for a in n.attribute if a.type == onnx.AttributeProto.TENSOR]
    return numpy_helper.to_array(model.graph.initializer[0]), numpy_helper.to_array(bias)


def test_denormal_weights_are_flushed_once_into_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HSD_CACHE_DIR", str(tmp_path / "cache"))
    weights = np.array([1.5, DENORMAL, -DENORMAL, 0], np.float32)
    model = tiny_model(tmp_path / "m.onnx", weights, np.float32([DENORMAL] * 4))
    copy = onnx_models.flushed(model)
    assert copy.parent == tmp_path / "cache" / "onnx" and copy.name.startswith("m-")
    weights, bias = values(copy)
    assert weights.tolist() == [1.5, 0, 0, 0] and bias.tolist() == [0] * 4
    assert values(model)[0][1] == DENORMAL  # the library's own file is left as it is
    stamp = copy.stat().st_mtime_ns
    assert onnx_models.flushed(model) == copy and copy.stat().st_mtime_ns == stamp  # made once
    tiny_model(model, weights * 2, np.float32([DENORMAL] * 4))  # another model (another hash): another copy
    assert onnx_models.flushed(model) != copy


def test_a_model_without_denormals_is_used_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setenv("HSD_CACHE_DIR", str(tmp_path / "cache"))
    model = tiny_model(tmp_path / "m.onnx", np.float32([1, 2, 3, 0]), np.float32([1e-30] * 4))
    assert onnx_models.flushed(model) == model
    assert [p.suffix for p in (tmp_path / "cache" / "onnx").iterdir()] == [".clean"]  # not read again
    assert onnx_models.flushed(model) == model


def test_an_unwritable_cache_leaves_the_model_as_it_is(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("HSD_CACHE_DIR", str(tmp_path / "file"))  # a file: no folder can be made in it
    model = tiny_model(tmp_path / "m.onnx", np.float32([DENORMAL] * 4), np.float32([0] * 4))
    assert onnx_models.flushed(model) == model


def test_a_flushed_model_computes_the_same(tmp_path, monkeypatch):
    monkeypatch.setenv("HSD_CACHE_DIR", str(tmp_path / "cache"))
    model = tiny_model(tmp_path / "m.onnx", np.float32([1.5, DENORMAL, 2, 3]), np.float32([0.5] * 4))
    x = {"x": np.float32([1, 2, 3, 4])}
    run = [ort.InferenceSession(str(p)).run(None, x)[0] for p in (model, onnx_models.flushed(model))]
    assert np.array_equal(*run)


def test_sessions_opened_inside_run_the_given_threads_on_flushed_models(tmp_path, monkeypatch):
    """The hook for libraries that take no session options: sessions opened inside take hsd's
    threads and the flushed model; sessions opened after it are ONNX Runtime's own again."""
    monkeypatch.setenv("HSD_CACHE_DIR", str(tmp_path / "cache"))
    model = tiny_model(tmp_path / "m.onnx", np.float32([DENORMAL] * 4), np.float32([0] * 4))
    plain = ort.InferenceSession
    with onnx_models.sessions_as_hsd_runs_them(2):
        given = ort.SessionOptions()
        given.enable_cpu_mem_arena = False  # a library's own option stays
        sessions = [ort.InferenceSession(str(model)), ort.InferenceSession(model, given, providers=None)]
    assert ort.InferenceSession is plain
    for session in sessions:
        options = session.get_session_options()
        assert (options.intra_op_num_threads, options.inter_op_num_threads) == (2, 1)
    assert not sessions[1].get_session_options().enable_cpu_mem_arena
    assert ort.InferenceSession(str(model)).get_session_options().intra_op_num_threads == 0


@pytest.mark.slow
def test_no_session_runs_more_threads_than_hsd_gives_it(tmp_path):
    """Every ONNX Runtime session open after drafting a born-digital page (pymupdf-layout's three)
    and a scan (rapid-layout, rapidocr's detector and recognizer) runs the prepare stage's
    `ocr_threads` intra-op threads (one, where ONNX Runtime's default is every core) and no inter-op
    pool. In a child: the layout model loads once per process."""
    script = f"""
import gc, json
import onnxruntime as ort
from pathlib import Path
from hsd_cli.pipeline.prepare import Preparer, PrepareConfig
prepare = Preparer(PrepareConfig(dpi=72, ocr_threads=1))
sources = [prepare(Path({str(SAMPLES)!r}) / name, 1).draft_source for name in ("born_digital.pdf", "scanned.pdf")]
sessions = [o for o in gc.get_objects() if isinstance(o, ort.InferenceSession)]
options = [s.get_session_options() for s in sessions]
print(json.dumps([sources, [[o.intra_op_num_threads, o.inter_op_num_threads] for o in options]]))
"""
    env = {**os.environ, "HSD_CACHE_DIR": str(tmp_path)}
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    sources, options = json.loads(run.stdout.splitlines()[-1])
    assert sources == ["text_layer", "rapidocr"]
    assert len(options) >= 6  # pymupdf-layout 3, rapid-layout 1, rapidocr 2 (the classifier is not used)
    assert options == [[1, 1]] * len(options)
