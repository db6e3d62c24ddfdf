#!/usr/bin/env bash
# The GPU run in one command (see benchmarks/gpu.py): bash benchmarks/gpu.sh [--dry-run]
set -euo pipefail
exec python "$(dirname "$0")/gpu.py" "$@"
