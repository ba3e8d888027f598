#!/usr/bin/env bash
# Creates (once) the project's Python venv at .venv with the pinned packages of tools/requirements.txt,
# and prints the path of its python. Every script that needs Python goes through this, so a fresh
# machine installs what it needs by itself.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# ONNX_LINT_VENV and ONNX_LINT_REQUIREMENTS name another venv and requirements file (tools/venv-export.sh).
venv="${ONNX_LINT_VENV:-$root/.venv}"
req="${ONNX_LINT_REQUIREMENTS:-$root/tools/requirements.txt}"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
  echo "$want" >"$stamp"
fi
echo "$venv/bin/python"
