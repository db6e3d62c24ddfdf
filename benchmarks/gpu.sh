#!/usr/bin/env bash
# The GPU run in one command (see benchmarks/gpu.py): bash benchmarks/gpu.sh [--dry-run]
set -euo pipefail
# A step's time on each engine (transformers eager, static KV cache, CUDA graphs): results/gpu-engine.json.
python "$(dirname "$0")/engine_step.py" "$@" || echo "engine_step.py failed; the run goes on" >&2
exec python "$(dirname "$0")/gpu.py" "$@"
