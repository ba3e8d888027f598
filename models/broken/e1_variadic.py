"""e1_variadic: E1 among three inputs of a variadic op — Sum of [4,5], [5], [3,5].

`sum_three` sums `a` [4,5], `b` [5] and `c` [3,5]. Axis -1 is 5 everywhere (valid); on axis -2, `b`
has no axis (it is right-aligned, so it does not take part) and `a`'s 4 conflicts with `c`'s 3 -> E1 on
axis -2, sizes [4, 3]. A checker that compares only the first two inputs (a with b: valid) misses it.

Check: `onnx.checker.check_model(model)` (structural) must pass; `full_check=True` is not required to,
since its strict shape inference raises InferenceError on the planted E1; the script catches exactly that
(FULL_CHECK_REJECTS). Output declared with rank 2, unknown dims. Writes e1_variadic.onnx next to this script.
"""

import os

import onnx
from _write import check_and_write
from onnx import TensorProto, helper

assert onnx.__version__ == "1.23.2", f"pinned onnx==1.23.2 expected (tools/venv.sh), got {onnx.__version__}"

OUT = os.path.splitext(os.path.abspath(__file__))[0] + ".onnx"
FULL_CHECK_REJECTS = True  # does onnx's own full_check (strict shape inference) find the planted E1?


def build() -> onnx.ModelProto:
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Sum", ["a", "b", "c"], ["total"], name="sum_three")],
        "e1_variadic",
        [
            helper.make_tensor_value_info("a", f, [4, 5]),
            helper.make_tensor_value_info("b", f, [5]),
            helper.make_tensor_value_info("c", f, [3, 5]),
        ],
        [helper.make_tensor_value_info("total", f, [None, None])],
    )
    return helper.make_model(
        graph,
        producer_name="onnx-lint-models",
        ir_version=10,
        opset_imports=[helper.make_opsetid("", 17)],
        doc_string="Broken on purpose: E1 among the three inputs of Sum (onnx-lint example model).",
    )


def main() -> None:
    check_and_write(build(), OUT, FULL_CHECK_REJECTS)


if __name__ == "__main__":
    main()
