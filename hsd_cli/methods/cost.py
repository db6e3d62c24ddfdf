"""What a forward pass costs for the run's decisions (tree sizes, `auto`, Stage-1 rules):
measured on this device, or flat (`--cost-model flat`: a GPU at batch 1, tried anywhere)."""

from __future__ import annotations

from hsd_cli.config import SpecConfig
from hsd_cli.spec.budget import CostModel


def flat_cost(spec: SpecConfig) -> CostModel:
    """One AR step's price up to a Stage-1 batch of full trees, growing linearly beyond it."""
    free = (spec.max_nodes + 1) * spec.stage1_batch
    return CostModel(((1, 1.0), (free, 1.0), (2 * free, 2.0)))


def run_cost(target, spec: SpecConfig) -> CostModel:
    """The cost model the run's policy reads."""
    return flat_cost(spec) if spec.cost_model == "flat" else target.cost
