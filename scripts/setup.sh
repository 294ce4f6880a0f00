#!/usr/bin/env bash
# Create .venv and install Research Studio with its test tools. Idempotent: when
# pyproject.toml has not changed since the last successful install it does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Research Studio needs Python 3.11 or newer ($PYTHON is $("$PYTHON" -V 2>&1))." >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv

stamp=.venv/.research-studio-installed
want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "Installing Research Studio into .venv (the first time compiles llama.cpp: ~4.5 min on 2 cores)..."
.venv/bin/python -m pip install --quiet --upgrade pip
# Portable llama.cpp build: a wheel built with -march=native can crash elsewhere. Only the
# text model is built: the multimodal library (LLAVA_BUILD, llama.cpp's mtmd) is not used
# and took a large share of the compile. pip keeps the built wheel in its cache, so a
# second set-up (another clone, CI) does not compile again.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF}"
.venv/bin/python -m pip install --quiet -e ".[test]"
echo "$want" > "$stamp"
