#!/usr/bin/env bash
# The GPU run in one command (see benchmarks/gpu.py): bash benchmarks/gpu.sh [--dry-run] [--out DIR]
# [--budget-s SECONDS] [--pack FILE.tar.gz]; the engine step, the CUDA tests, the cost curves,
# throughput, the oracle table and Qwen, most wanted first.
set -euo pipefail
exec python "$(dirname "$0")/gpu.py" "$@"
