#!/usr/bin/env bash
# Create .venv and install Research Studio: `setup.sh` installs what the main job needs,
# `setup.sh test` adds the test tools and the optional parts the tests exercise.
# Idempotent: when pyproject.toml has not changed since the last successful install of
# the same parts it does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  "") target="." stamp=.venv/.research-studio-installed ;;
  test) target=".[test]" stamp=.venv/.research-studio-installed-test ;;
  *) echo "usage: scripts/setup.sh [test]" >&2; exit 2 ;;
esac

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "Research Studio needs Python 3.11 or newer ($PYTHON is $("$PYTHON" -V 2>&1))." >&2
  exit 1
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv

want="$(cat pyproject.toml | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  exit 0
fi

echo "Installing Research Studio into .venv (the first time compiles llama.cpp: ~2.5 min on 2 cores)..."
.venv/bin/python -m pip install --quiet --upgrade pip
# Portable llama.cpp build: a wheel built with -march=native can crash elsewhere. Only
# what the Python bindings load is built: not the multimodal library (LLAVA_BUILD,
# llama.cpp's mtmd) nor llama.cpp's "common" utilities (see llama-cpp-text-only.cmake).
# pip keeps the built wheel in its cache, so a second set-up (another clone, CI) does not
# compile again.
text_only="-DCMAKE_PROJECT_llama.cpp_INCLUDE=$PWD/scripts/llama-cpp-text-only.cmake"
# CMAKE_ARGS is split at spaces: under a path with one, build the common library as well.
case "$PWD" in *[[:space:]]*) text_only="" ;; esac
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DLLAVA_BUILD=OFF $text_only}"
.venv/bin/python -m pip install --quiet -e "$target"
echo "$want" > "$stamp"
# The test install holds everything the main job needs too.
[ "$target" = "." ] || echo "$want" > .venv/.research-studio-installed
