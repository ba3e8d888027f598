"""The shape contracts of the standard operators, one by one, against onnxruntime.

Each case of the `cases_*.py` files beside this one (one file per rule file of `src/shape/ops/`) is one node
in a model of its own, built, run and judged as `../nodecase.py` says. Every case names the contract it is
about (`contract="matmul-inner"`, the name `src/shape/ops/` gives it): a planted fault (`fault=True`) is a
break of that contract, which onnxruntime must refuse at load or at run and onnx-lint must report at the node
with a finding naming the contract; a valid case is its valid twin, which onnxruntime runs and onnx-lint
passes without error, inferring the output shapes onnxruntime computes.

Every contract a rule file of the standard operators states (`Contract::new(...)` in `src/shape/ops/`,
the contrib files aside) must have at least one planted fault and one valid twin here: a contract without
both is a failure of the run (not checked with --filter).

Usage: ops.py --bin BINARY [--filter SUBSTR] [--verbose] [--markdown FILE]   (with the venv of tools/venv.sh)
Prints one line per operator, the table per contract (planted faults found / refused by onnxruntime, at
load or at run; valid twins clean), the failures, and last `contract-ops: N passed, M failed`. Exit status 1
on any failure. --markdown FILE writes the table of docs/contracts.md.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from nodecase import main  # noqa: E402

# The rule files of the standard operators: every contract they state needs a planted fault and a valid
# twin here. onnxruntime's contrib operators have their own suite (contrib/ops.py).
RULES = HERE.parents[2] / "src" / "shape" / "ops"
RULE_FILES = sorted(p for p in RULES.rglob("*.rs") if not p.name.startswith("contrib") and p.name != "contract.rs")

if __name__ == "__main__":
    sys.exit(main("contract-ops", HERE, __doc__, RULE_FILES))
