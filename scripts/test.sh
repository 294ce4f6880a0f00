#!/usr/bin/env bash
# Set up (if needed), lint, and run the whole test suite with the real embedded model.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
set +u
source scripts/test-services.sh
set -u
.venv/bin/ruff check src tests benchmarks
set +e
.venv/bin/python -m pytest -q "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "pytest collected no tests: treating as a failure" >&2
  exit 1
fi
exit "$status"
