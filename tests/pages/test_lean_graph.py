"""The lean rewrite of drafting's converted models: bitwise the plain conversion's outputs, no
copies, and no value of the model's device read on the host (the model runs whole on torch's
meta device, which holds no values to read; the plain conversion cannot)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from hsd_cli.drafts.rapid_engines import engine_options
from hsd_cli.pages import lean_graph, torch_models

pytestmark = pytest.mark.skipif(not torch_models.available(), reason="onnx2torch is not installed")

# Drafting's models (the files its engines open) and input shapes they see: recognition at line
# widths (a batch of one width), detection and layout at page sizes.
MODELS = {
    "Rec.model_path": [(1, 3, 48, 96), (3, 3, 48, 333)],
    "Det.model_path": [(1, 3, 320, 256)],
    "layout": [(1, 3, 800, 608)],
}


def _model_path(key: str) -> Path:
    params, layout = engine_options(0.5, None)
    return Path(layout["model_dir_or_path"] if key == "layout" else params[key])


@pytest.fixture(scope="module", params=list(MODELS))
def models(request):
    """(lean model, plain conversion, input shapes) of one of drafting's models, on the CPU."""
    path = _model_path(request.param)
    lean = torch_models.TorchModel(path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lean_graph, "lean", lambda gm: gm)
        plain = torch_models.TorchModel(path)
    return lean, plain, MODELS[request.param]


def test_outputs_are_the_plain_conversions_bit_for_bit(models) -> None:
    lean, plain, shapes = models
    rng = np.random.default_rng(0)
    for shape in shapes:
        x = rng.random(shape, dtype=np.float32)
        for got, want in zip(lean(x), plain(x), strict=True):
            np.testing.assert_array_equal(got, want)


def test_the_model_never_reads_its_device(models) -> None:
    """Shapes and shape constants live on the host: on a GPU no op waits for the device."""
    import torch

    lean, plain, shapes = models
    on_meta = copy.deepcopy(lean.module).to("meta")
    with torch.inference_mode():
        out = on_meta(torch.empty(shapes[0], device="meta"))
    outs = out if isinstance(out, list | tuple) else [out]
    assert [tuple(o.shape) for o in outs] == [o.shape for o in plain(np.zeros(shapes[0], np.float32))]
    with pytest.raises(NotImplementedError), torch.inference_mode():  # the plain conversion reads it
        copy.deepcopy(plain.module).to("meta")(torch.empty(shapes[0], device="meta"))


def test_identities_are_not_copies(models) -> None:
    lean, plain, _ = models
    identity = lean_graph._onnx2torch().OnnxCopyIdentity
    assert not [m for m in lean.module.modules() if isinstance(m, identity)]
    assert len(list(lean.module.graph.nodes)) < len(list(plain.module.graph.nodes))
