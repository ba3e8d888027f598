#!/usr/bin/env bash
# Creates (once) the venv for re-exporting the torch models of the real-model corpus, .venv-export, with
# the pinned packages of tools/requirements-export.txt (torch, onnxscript, transformers), and prints the
# path of its python. Only tests/conformance/real/export_torch.py needs it; the exported models are
# checked in, so CI and run.sh never create it. torch from PyPI pulls its CUDA libraries: several GB.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ONNX_LINT_VENV="${ONNX_LINT_EXPORT_VENV:-$root/.venv-export}" \
  ONNX_LINT_REQUIREMENTS="$root/tools/requirements-export.txt" \
  exec "$root/tools/venv.sh"
