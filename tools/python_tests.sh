#!/usr/bin/env bash
# The Python package's tests: makes (once) the venv .venv-py with tools/requirements-python.txt,
# installs the package into it with `pip install .` (maturin builds the extension in python/), and
# runs the pytest suite python/tests/ (which also runs examples/pipeline.py and the installed
# `onnx-lint` command). Arguments go to pytest.
#
# ONNX_LINT_PY_PROFILE=dev builds the extension without optimisation (faster to build while
# iterating; the tests are then slower). The Rust build goes to target/python unless CARGO_TARGET_DIR
# says otherwise: a cold release build takes about 5 minutes on 2 cores, a warm one seconds.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=$(ONNX_LINT_VENV="$root/.venv-py" ONNX_LINT_REQUIREMENTS="$root/tools/requirements-python.txt" tools/venv.sh)
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/python}"
# The venv's tools first: maturin for the build, the installed `onnx-lint` for the tests.
export PATH="$(dirname "$python"):$PATH"
profile="${ONNX_LINT_PY_PROFILE:-release}"
start=$(date +%s)
# Without build isolation: maturin comes from the venv (pinned), nothing is fetched per build.
MATURIN_PEP517_ARGS="--profile $profile" \
  "$python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps "$root"
echo "python_tests: pip install . ($profile) took $(($(date +%s) - start)) s" >&2
# From another folder, so that `import onnx_lint` finds the installed package, not python/onnx_lint.
cd "$root/python/tests"
exec "$python" -m pytest -q -p no:cacheprovider "$@" .
