#!/usr/bin/env bash
# Creates (once) the venv for re-exporting the torch models of the real-model corpus, .venv-export, with
# the pinned packages of tools/requirements-export.txt (torch, onnxscript, transformers), and prints the
# path of its python. Only tests/conformance/real/export_torch.py needs it; the exported models are
# checked in, so CI and run.sh never create it. torch from PyPI pulls its CUDA libraries: several GB.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="${ONNX_LINT_EXPORT_VENV:-$root/.venv-export}"
req="$root/tools/requirements-export.txt"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
