"""``python -m onnx_lint`` and the ``onnx-lint`` console script: the command line, run in this process
by the same code as the ``onnx-lint`` binary (same arguments, output and exit statuses)."""

from __future__ import annotations

import signal
import sys
from typing import List, NoReturn, Optional

from . import _onnx_lint


def main(argv: Optional[List[str]] = None) -> NoReturn:
    """Runs ``onnx-lint`` with ``argv`` (default: the process's arguments) and exits with its status."""
    args = sys.argv[1:] if argv is None else argv
    # The binary dies on Ctrl-C and on a closed pipe; Python's handlers would only act once the Rust
    # call returns (a long check would not stop), so restore the default dispositions.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.stdout.flush()
    sys.stderr.flush()
    # The program name clap prints in usage and help is the command's, not `__main__.py`.
    sys.exit(_onnx_lint.main(["onnx-lint", *args]))


if __name__ == "__main__":
    main()
