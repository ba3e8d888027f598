"""The shape contracts of the standard operators, one by one, against onnxruntime.

Each case of the `cases_*.py` files beside this one (one file per rule file of `src/shape/ops/`) is one node
in a model of its own, built, run and judged as `../nodecase.py` says. Every case names the contract it is
about (`contract="matmul-inner"`, the name `src/shape/ops/` gives it): a planted fault (`fault=True`) is a
break of that contract, which onnxruntime must refuse at load or at run and onnx-lint must report at the node
with a finding naming the contract; a valid case is its valid twin, which onnxruntime runs and onnx-lint
passes without error, inferring the output shapes onnxruntime computes.

Usage: ops.py --bin BINARY [--filter SUBSTR] [--verbose]   (with the venv of tools/venv.sh)
Prints one line per operator, the table per contract (planted faults found / refused by onnxruntime, at
load or at run; valid twins clean), the failures, and last `contract-ops: N passed, M failed`. Exit status 1
on any failure.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from nodecase import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main("contract-ops", HERE, __doc__))
