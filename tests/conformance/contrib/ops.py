"""The per-operator comparison of onnx-lint's shape rules with onnxruntime, for onnxruntime's contrib
operators (domain com.microsoft, and the few it registers in the default domain).

The cases are the CASES lists of the `cases_*.py` files beside this one; how each is built, run and judged is
`../nodecase.py`'s. A planted fault is found when onnx-lint reports E1 (a broadcast) or E2 (a contract) at
the node, W1 or W2 where the case says the fault is in a symbolic size.

Usage: ops.py --bin BINARY [--filter SUBSTR] [--verbose] [--markdown FILE]   (with the venv of tools/venv.sh)
--markdown FILE writes the list of the contracts the contrib rule files state (docs/contracts.md).
Prints one line per operator (cases, passed) and the failures; the last line is
`contrib-ops: N passed, M failed`. Exit status 1 on any failure.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from nodecase import main  # noqa: E402

# The contrib operators' rule files: --markdown lists the contracts they state (docs/contracts.md).
RULE_FILES = sorted((HERE.parents[2] / "src" / "shape" / "ops").glob("contrib_*.rs"))

if __name__ == "__main__":
    sys.exit(main("contrib-ops", HERE, __doc__, RULE_FILES, per_contract=False))
