#!/usr/bin/env bash
# Set up (if needed) and run the main job on the embedded defaults: no keys, no network.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/research-studio demo "$@"
