"""Targets whose language model uses plain 1D rope (no get_rope_index): positions from the mask."""

from __future__ import annotations

import torch

from hsd_cli.targets.runtime.base import VisionTarget


class PlainRopeTarget(VisionTarget):
    """FamilySpec.n_axes = 0: prefill and tree steps pass position_ids [B, S]."""

    def rope_index(self, inputs) -> torch.Tensor:
        """Position ids [1, B, S]: a row counts its own tokens, so left padding shifts nothing."""
        mask = inputs["attention_mask"]  # [B, S]
        return ((mask.cumsum(-1) - 1).clamp(min=0) * mask)[None]
