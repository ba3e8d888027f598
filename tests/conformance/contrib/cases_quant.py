"""Cases of onnxruntime's quantized contrib operators: the QLinear element-wise, pooling, reduction and
concatenation ops, MulInteger, ReduceSumInteger (src/shape/ops/contrib_qlinear.rs), and QGemm, the
integer and N-bit matrix products, GatherBlockQuantized, com.microsoft QuantizeLinear/DequantizeLinear and
DynamicQuantizeLSTM (src/shape/ops/contrib_quant_matmul.rs)."""

from nodecase import Case, In

U8, I8, F32 = "uint8", "int8", "float32"


def scale(shape=None):
    return In([] if shape is None else shape, F32, value=0.05 if shape is None else None, const=True)


def zp(dtype=U8, shape=None):
    return In([] if shape is None else shape, dtype, value=0 if shape is None else None, const=True, low=0, high=3)


def qbinary(op, a, b, dtype=U8, **kw):
    return Case(
        kw.pop("name"),
        op,
        [In(a, dtype, high=50), scale(), zp(dtype), In(b, dtype, high=50), scale(), zp(dtype), scale(), zp(dtype)],
        **kw,
    )


CASES = [
    # QLinearAdd / QLinearMul: A (0) and B (3) broadcast multidirectionally.
    qbinary("QLinearAdd", [2, 3, 8], [8], name="QLinearAdd/bias"),
    qbinary("QLinearAdd", [2, 1, 8], [3, 1], I8, name="QLinearAdd/both-ways-int8"),
    qbinary("QLinearAdd", ["b", "s", 8], ["b", "s", 8], name="QLinearAdd/symbolic", bind={"b": 2, "s": 3}),
    qbinary("QLinearAdd", [2, 3, 8], [7], name="QLinearAdd/mismatch", fault=True),
    qbinary("QLinearAdd", [2, 3, 8], [2, 4, 8], name="QLinearAdd/mismatch-middle", fault=True),
    # onnxruntime's shape inference refuses an omitted zero point before the last input.
    Case(
        "QLinearAdd/no-output-zero-point",
        "QLinearAdd",
        [In([4, 5], U8, high=50), scale(), zp(), In([5], U8, high=50), scale(), zp(), scale()],
    ),
    Case(
        "QLinearMul/zero-point-of-rank-1",
        "QLinearMul",
        [In([4, 5], I8), scale(), zp(I8), In([5], I8), scale(), zp(I8, [1]), scale(), zp(I8)],
        fault=True,
    ),
    Case(
        "QLinearAdd/scale-of-rank-1",
        "QLinearAdd",
        [In([4, 5], U8), scale([1]), zp(), In([5], U8), scale(), zp(), scale(), zp()],
        fault=True,
    ),
    qbinary("QLinearMul", [2, 3, 8], [3, 1], name="QLinearMul/broadcast"),
    qbinary("QLinearMul", ["n", 4], [1, 4], I8, name="QLinearMul/symbolic", bind={"n": 3}),
    qbinary("QLinearMul", [2, 3, 8], [4, 8], name="QLinearMul/mismatch", fault=True),
    # QLinearWhere: condition (0), X (1), Y (4); Z of z_zero_point's type.
    Case(
        "QLinearWhere/broadcast",
        "QLinearWhere",
        [In([2, 1], "bool"), In([1, 5], U8), scale(), zp(), In([5], U8), scale(), zp(), scale(), zp()],
    ),
    Case(
        "QLinearWhere/int8-symbolic",
        "QLinearWhere",
        [In(["n", 4], "bool"), In(["n", 4], I8), scale(), zp(I8), In([4], I8), scale(), zp(I8), scale(), zp(I8)],
        bind={"n": 3},
    ),
    Case(
        "QLinearWhere/mismatch",
        "QLinearWhere",
        [In([2, 5], "bool"), In([2, 5], U8), scale(), zp(), In([4], U8), scale(), zp(), scale(), zp()],
        fault=True,
    ),
    Case(
        "QLinearWhere/condition-mismatch",
        "QLinearWhere",
        [In([3, 1], "bool"), In([2, 5], U8), scale(), zp(), In([5], U8), scale(), zp(), scale(), zp()],
        fault=True,
    ),
    # Unary ops.
    Case("QLinearSigmoid/u8", "QLinearSigmoid", [In([2, 3, 4], U8), scale(), zp(), scale(), zp()]),
    Case("QLinearSigmoid/i8-symbolic", "QLinearSigmoid", [In(["b", 7], I8), scale(), zp(I8), scale(), zp(I8)], bind={"b": 2}),
    Case("QLinearLeakyRelu/u8", "QLinearLeakyRelu", [In([2, 3], U8), scale(), zp(), scale(), zp()], attrs={"alpha": 0.1}),
    Case("QLinearLeakyRelu/no-zp", "QLinearLeakyRelu", [In([5], I8), scale(), None, scale(), None]),
    Case(
        "QLinearSoftmax/opset13",
        "QLinearSoftmax",
        [In([2, 3, 4], U8), scale(), zp(), In([], F32, value=1.0 / 256, const=True), zp()],
        attrs={"axis": -1, "opset": 13},
    ),
    Case(
        "QLinearSoftmax/int8-opset12",
        "QLinearSoftmax",
        [In(["b", 4, 5], I8), scale(), zp(I8), In([], F32, value=1.0 / 256, const=True), zp(I8, None)],
        attrs={"axis": 1, "opset": 12},
        bind={"b": 3},
    ),
    # QLinearConcat: Y_scale, Y_zero_point, then (tensor, scale, zero point) triples.
    Case(
        "QLinearConcat/axis1",
        "QLinearConcat",
        [scale(), zp(), In([2, 3, 4], U8), scale(), zp(), In([2, 5, 4], U8), scale(), zp()],
        attrs={"axis": 1},
    ),
    Case(
        "QLinearConcat/symbolic-negative-axis",
        "QLinearConcat",
        [scale(), zp(I8), In(["b", 3], I8), scale(), zp(I8), In(["b", "s"], I8), scale(), zp(I8),
         In(["b", 1], I8), scale(), zp(I8)],
        attrs={"axis": -1},
        bind={"b": 2, "s": 4},
    ),
    Case(
        "QLinearConcat/off-axis-mismatch",
        "QLinearConcat",
        [scale(), zp(), In([2, 3, 4], U8), scale(), zp(), In([2, 5, 3], U8), scale(), zp()],
        attrs={"axis": 1},
        fault=True,
    ),
    # Pools.
    Case(
        "QLinearGlobalAveragePool/nchw",
        "QLinearGlobalAveragePool",
        [In([2, 3, 5, 6], U8), scale(), zp(), scale(), zp()],
    ),
    Case(
        "QLinearGlobalAveragePool/nhwc",
        "QLinearGlobalAveragePool",
        [In([2, 5, 6, 3], U8), scale(), zp(), scale(), zp()],
        attrs={"channels_last": 1},
    ),
    Case(
        "QLinearGlobalAveragePool/symbolic-int8",
        "QLinearGlobalAveragePool",
        [In(["n", 4, "h", "w"], I8), scale(), zp(I8), scale(), zp(I8)],
        bind={"n": 2, "h": 3, "w": 5},
    ),
    Case(
        "QLinearAveragePool/nchw",
        "QLinearAveragePool",
        [In([1, 3, 9, 7], U8), scale(), zp(), scale(), zp()],
        attrs={"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    Case(
        "QLinearAveragePool/nhwc-ceil",
        "QLinearAveragePool",
        [In([1, 9, 8, 4], U8), scale(), zp(), scale(), zp()],
        attrs={"kernel_shape": [3, 2], "strides": [2, 3], "ceil_mode": 1, "channels_last": 1},
    ),
    Case(
        "QLinearAveragePool/1d-same",
        "QLinearAveragePool",
        [In([2, 3, 10], I8), scale(), zp(I8), scale(), zp(I8)],
        attrs={"kernel_shape": [3], "strides": [3], "auto_pad": "SAME_UPPER"},
    ),
    # QLinearConv of com.microsoft.
    Case(
        "QLinearConv/ms-nchw",
        "QLinearConv",
        [In([1, 3, 8, 8], U8), scale(), zp(), In([4, 3, 3, 3], I8, const=True, low=-2, high=2), scale(), zp(I8),
         scale(), zp()],
        attrs={"strides": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    Case(
        "QLinearConv/ms-nhwc",
        "QLinearConv",
        [In([1, 8, 6, 3], U8), scale(), zp(), In([4, 3, 3, 3], I8, const=True, low=-2, high=2), scale(), zp(I8),
         scale(), zp()],
        attrs={"channels_last": 1},
    ),
    # QGemm.
    Case(
        "QGemm/float-out",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True, low=-2, high=2), scale(), zp(I8)],
    ),
    Case(
        "QGemm/quantized-out-transB",
        "QGemm",
        [In(["m", 4], U8), scale(), zp(), In([5, 4], I8, const=True, low=-2, high=2), scale(), zp(I8),
         In([5], "int32", const=True), scale(), zp(U8)],
        attrs={"transB": 1},
        bind={"m": 3},
    ),
    Case(
        "QGemm/transA-int8-out",
        "QGemm",
        [In([4, 3], I8), scale(), zp(I8), In([4, 5], I8, const=True), scale(), zp(I8), None, scale(), zp(I8)],
        attrs={"transA": 1},
    ),
    Case(
        "QGemm/k-mismatch",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([5, 5], I8, const=True), scale(), zp(I8)],
        fault=True,
    ),
    Case(
        "QGemm/c-mismatch",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale(), zp(I8), In([4], "int32", const=True)],
        fault=True,
    ),
    # The integer matrix products.
    Case(
        "MatMulIntegerToFloat/batched",
        "MatMulIntegerToFloat",
        [In([2, 3, 4], U8), In([4, 5], I8, const=True), scale(), scale()],
    ),
    Case(
        "MatMulIntegerToFloat/batch-broadcast-bias",
        "MatMulIntegerToFloat",
        [In(["b", 1, 3, 4], U8), In([2, 4, 5], U8), scale(), scale(), zp(), zp(), In([5], F32, const=True)],
        bind={"b": 2},
    ),
    Case(
        "MatMulIntegerToFloat/batch-mismatch",
        "MatMulIntegerToFloat",
        [In([2, 3, 4], U8), In([3, 4, 5], I8), scale(), scale()],
        fault=True,
    ),
    Case(
        "DynamicQuantizeMatMul/3d",
        "DynamicQuantizeMatMul",
        [In([2, 3, 4], F32), In([4, 6], I8, const=True), scale(), zp(I8)],
    ),
    Case(
        "DynamicQuantizeMatMul/per-column-bias",
        "DynamicQuantizeMatMul",
        [In(["s", 4], F32), In([4, 6], U8, const=True), scale([6]), zp(U8, [6]), In([6], F32, const=True)],
        bind={"s": 5},
    ),
    Case(
        "DynamicQuantizeMatMul/batch-mismatch",
        "DynamicQuantizeMatMul",
        [In([2, 3, 4], F32), In([3, 4, 6], I8), scale()],
        fault=True,
    ),
    Case("MatMulInteger16/2d", "MatMulInteger16", [In([3, 4], "int16"), In([4, 5], "int16")]),
    # MatMulNBits: B (N, k_blocks, blob), scales (N * k_blocks).
    Case(
        "MatMulNBits/4bit",
        "MatMulNBits",
        [In([2, 3, 32], F32), In([8, 1, 16], U8, const=True, high=255), In([8], F32, const=True)],
        attrs={"K": 32, "N": 8, "bits": 4, "block_size": 32},
    ),
    Case(
        "MatMulNBits/symbolic-zp-bias",
        "MatMulNBits",
        [In(["b", 64], F32), In([6, 2, 16], U8, const=True, high=255), In([12], F32, const=True),
         In([6], U8, const=True), None, In([6], F32, const=True)],
        attrs={"K": 64, "N": 6, "bits": 4, "block_size": 32},
        bind={"b": 3},
    ),
    # GatherBlockQuantized.
    Case(
        "GatherBlockQuantized/uint8-4bit",
        "GatherBlockQuantized",
        [In([10, 16], U8, const=True, high=255), In([2, 3], "int64", low=0, high=10), In([10, 1], F32, const=True)],
        attrs={"bits": 4, "block_size": 32, "gather_axis": 0, "quantize_axis": 1},
    ),
    Case(
        "GatherBlockQuantized/uint8-8bit",
        "GatherBlockQuantized",
        [In([10, 32], U8, const=True, high=255), In(["n"], "int32", low=0, high=10), In([10, 2], F32, const=True)],
        attrs={"bits": 8, "block_size": 16, "gather_axis": 0, "quantize_axis": 1},
        bind={"n": 4},
    ),
    # QuantizeLinear / DequantizeLinear of com.microsoft.
    Case("QuantizeLinear/ms-per-tensor", "QuantizeLinear", [In([2, 3], F32), scale(), zp(I8)]),
    Case("QuantizeLinear/ms-no-zp", "QuantizeLinear", [In(["n", 3], F32), scale()], bind={"n": 2}),
    Case(
        "QuantizeLinear/ms-per-axis",
        "QuantizeLinear",
        [In([2, 3, 4], F32), In([3], F32, value=[0.1, 0.2, 0.3], const=True), zp(U8, [3])],
        attrs={"axis": 1},
    ),
    Case(
        "QuantizeLinear/ms-per-axis-mismatch",
        "QuantizeLinear",
        [In([2, 3, 4], F32), In([4], F32, value=[0.1, 0.2, 0.3, 0.4], const=True), zp(U8, [4])],
        attrs={"axis": 1},
        fault=True,
    ),
    Case("DequantizeLinear/ms-per-tensor", "DequantizeLinear", [In([2, 3], I8), scale(), zp(I8)]),
    Case(
        "DequantizeLinear/ms-per-axis0",
        "DequantizeLinear",
        [In([4, 3], U8), In([4], F32, value=[0.1, 0.2, 0.3, 0.4], const=True), zp(U8, [4])],
        attrs={"axis": 0},
    ),
    Case(
        "DequantizeLinear/ms-default-axis-mismatch",
        "DequantizeLinear",
        [In([4, 3], U8), In([4], F32, value=[0.1, 0.2, 0.3, 0.4], const=True), zp(U8, [4])],
        fault=True,
    ),
    # DynamicQuantizeLSTM: W [D, input, 4H], R [D, H, 4H], scales and zero points per direction.
    Case(
        "DynamicQuantizeLSTM/forward",
        "DynamicQuantizeLSTM",
        [In([5, 2, 3], F32), In([1, 3, 16], I8, const=True, low=-2, high=2),
         In([1, 4, 16], I8, const=True, low=-2, high=2), None, None, None, None, None,
         In([1], F32, value=[0.05], const=True), In([1], I8, value=[0], const=True),
         In([1], F32, value=[0.05], const=True), In([1], I8, value=[0], const=True)],
        attrs={"hidden_size": 4},
        outputs=3,
    ),
    Case(
        "DynamicQuantizeLSTM/bidirectional-symbolic",
        "DynamicQuantizeLSTM",
        [In(["s", "b", 3], F32), In([2, 3, 16], U8, const=True, low=0, high=4),
         In([2, 4, 16], U8, const=True, low=0, high=4), None, None, None, None, None,
         In([2], F32, value=[0.05, 0.05], const=True), In([2], U8, value=[1, 1], const=True),
         In([2], F32, value=[0.05, 0.05], const=True), In([2], U8, value=[1, 1], const=True)],
        attrs={"hidden_size": 4, "direction": "bidirectional"},
        outputs=3,
        bind={"s": 4, "b": 2},
    ),
    # The one-value scales and zero points the kernels check (IsScalarOr1ElementVector).
    Case("QLinearSigmoid/scale-of-two", "QLinearSigmoid", [In([2, 3], U8), scale([2]), zp(), scale(), zp()], fault=True),
    Case("QLinearSigmoid/scale-1x1", "QLinearSigmoid", [In([2, 3], U8), scale([1, 1]), zp(), scale(), zp()], fault=True),
    Case("QLinearSigmoid/scale-of-one", "QLinearSigmoid", [In([2, 3], U8), scale([1]), zp(), scale(), zp(U8, [1])]),
    Case("QLinearLeakyRelu/zero-point-of-two", "QLinearLeakyRelu", [In([2, 3], U8), scale(), zp(U8, [2]), scale(), zp()], fault=True),
    Case(
        "QLinearSoftmax/scale-of-two",
        "QLinearSoftmax",
        [In([2, 3], U8), scale([2]), zp(), scale(), zp()],
        attrs={"opset": 13},
        fault=True,
    ),
    Case(
        "QLinearSoftmax/fed-scale-of-two",
        "QLinearSoftmax",
        [In([2, 3], U8), In([2], F32, value=[0.1, 0.2]), zp(), scale(), zp()],
        attrs={"opset": 13},
    ),
    Case(
        "QGemm/y-zero-point-of-two",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], U8, const=True), scale(), zp(), None, scale(), zp(U8, [2])],
        fault=True,
    ),
    Case(
        "QLinearGlobalAveragePool/scale-of-two",
        "QLinearGlobalAveragePool",
        [In([1, 2, 3, 3], U8), scale(), zp(), scale([2]), zp()],
        fault=True,
    ),
    Case(
        "QLinearGlobalAveragePool/scale-1x1",
        "QLinearGlobalAveragePool",
        [In([1, 2, 3, 3], U8), scale([1, 1]), zp(), scale(), zp()],
        fault=True,
    ),
    Case(
        "QLinearAveragePool/scale-of-rank-1",
        "QLinearAveragePool",
        [In([1, 2, 4, 4], U8), scale([1]), zp(), scale(), zp()],
        attrs={"kernel_shape": [2, 2]},
        fault=True,
    ),
    # QLinearWhere and QLinearConcat read their scales only to build a lookup table, which they skip
    # when an operand's scale and zero point equal the output's: a scale of two equal values runs
    # (so these ops' scales are not checked; two different values are refused).
    Case(
        "QLinearWhere/scale-of-two-equal-values",
        "QLinearWhere",
        [In([2], "bool"), In([2], U8), In([2], F32, value=[0.05, 0.05], const=True), zp(), In([2], U8), scale(),
         zp(), scale(), zp()],
    ),
    Case(
        "QLinearConcat/scale-of-two-equal-values",
        "QLinearConcat",
        [scale(), zp(), In([2], U8), In([2], F32, value=[0.05, 0.05], const=True), zp(), In([3], U8), scale(), zp()],
        attrs={"axis": 0},
    ),
    Case(
        "QLinearConcat/rank-mismatch",
        "QLinearConcat",
        [scale(), zp(), In([2, 3], U8), scale(), zp(), In([2], U8), scale(), zp()],
        attrs={"axis": 0},
        fault=True,
    ),
    Case("QLinearConcat/one-operand", "QLinearConcat", [scale(), zp(), In([2, 3], U8), scale(), zp()], attrs={"axis": 1}),
    # QGemm's scales and zero points.
    Case(
        "QGemm/per-column-b",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale([5]), zp(I8, [5])],
    ),
    Case(
        "QGemm/y-scale-without-zero-point",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale(), zp(I8), None, scale()],
    ),
    Case(
        "QGemm/a-scale-of-two",
        "QGemm",
        [In([3, 4], U8), scale([2]), zp(), In([4, 5], I8, const=True), scale(), zp(I8)],
        fault=True,
    ),
    Case(
        "QGemm/b-scale-not-per-column",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale([4]), zp(I8, [4])],
        fault=True,
    ),
    Case(
        "QGemm/b-scale-and-zero-point-counts",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale([1]), zp(I8)],
        fault=True,
    ),
    Case(
        "QGemm/b-scale-one-zero-point-per-column",
        "QGemm",
        [In([3, 4], U8), scale(), zp(), In([4, 5], I8, const=True), scale([1]), zp(I8, [5])],
        fault=True,
    ),
    # Contractions and biases of the integer matrix products.
    Case(
        "MatMulIntegerToFloat/k-mismatch",
        "MatMulIntegerToFloat",
        [In([3, 4], U8), In([3, 5], I8), scale(), scale()],
        fault=True,
    ),
    Case(
        "MatMulIntegerToFloat/bias-mismatch",
        "MatMulIntegerToFloat",
        [In([3, 4], U8), In([4, 5], I8), scale(), scale(), None, None, In([4], F32, const=True)],
        fault=True,
    ),
    Case(
        "DynamicQuantizeMatMul/bias-mismatch",
        "DynamicQuantizeMatMul",
        [In([3, 4], F32), In([4, 5], I8, const=True), scale(), zp(I8), In([4], F32, const=True)],
        fault=True,
    ),
    Case(
        "MatMulNBits/k-mismatch",
        "MatMulNBits",
        [In([2, 3, 16], F32), In([8, 1, 16], U8, const=True), In([8], F32, const=True)],
        attrs={"K": 32, "N": 8, "bits": 4, "block_size": 32},
        fault=True,
    ),
    Case(
        "MatMulNBits/bias-mismatch",
        "MatMulNBits",
        [In([2, 3, 32], F32), In([8, 1, 16], U8, const=True), In([8], F32, const=True), None, None,
         In([7], F32, const=True)],
        attrs={"K": 32, "N": 8, "bits": 4, "block_size": 32},
        fault=True,
    ),
    # Q/DQ's scale and zero point.
    Case(
        "QuantizeLinear/ms-scalar-scale-zero-point-of-one",
        "QuantizeLinear",
        [In([2, 3], F32), scale(), zp(U8, [1])],
    ),
    Case(
        "QuantizeLinear/ms-scale-of-rank-2",
        "QuantizeLinear",
        [In([2, 3], F32), In([2, 3], F32, value=[[0.1] * 3] * 2, const=True), zp()],
        fault=True,
    ),
    Case(
        "QuantizeLinear/ms-per-axis-zero-point-mismatch",
        "QuantizeLinear",
        [In([2, 3], F32), In([3], F32, value=[0.1] * 3, const=True), zp(U8, [2])],
        fault=True,
    ),
    Case("DequantizeLinear/ms-float16", "DequantizeLinear", [In([2, 3], U8), In([], "float16", value=0.1, const=True), zp()]),
    Case(
        "GatherBlockQuantized/3d-gather",
        "GatherBlockQuantized",
        [In([4, 10, 16], U8, const=True, high=255), In([2], "int64", low=0, high=4), In([4, 10, 1], F32, const=True)],
        attrs={"bits": 4, "block_size": 32, "gather_axis": 0, "quantize_axis": 2},
    ),
    # MatMulBnb4: B packed [(N * K + 1) / 2], absmax [(N * K + block_size - 1) / block_size].
    Case(
        "MatMulBnb4/transB",
        "MatMulBnb4",
        [In(["b", 3, 32], F32), In([128], U8, const=True, high=255), In([8], F32, const=True)],
        attrs={"K": 32, "N": 8, "block_size": 32, "quant_type": 1},
        bind={"b": 2},
    ),
    Case(
        "MatMulBnb4/no-transB",
        "MatMulBnb4",
        [In([2, 8], F32), In([128], U8, const=True, high=255), In([8], F32, const=True)],
        attrs={"K": 32, "N": 8, "block_size": 32, "quant_type": 0, "transB": 0},
    ),
    # QEmbedLayerNormalization: ids, segments, word/position/segment embeddings, gamma, beta, mask, then
    # the scales (8-12) and zero points (13-17).
    Case(
        "QEmbedLayerNormalization/with-mask",
        "QEmbedLayerNormalization",
        [In(["b", "s"], "int32", low=0, high=10), In(["b", "s"], "int32", low=0, high=2),
         In([10, 8], U8, const=True, high=255), In([16, 8], U8, const=True, high=255),
         In([2, 8], U8, const=True, high=255), In([8], U8, const=True, high=255), In([8], U8, const=True, high=255),
         In(["b", "s"], "int32", low=1, high=2)]
        + [scale() for _ in range(5)] + [zp() for _ in range(5)],
        outputs=2,
        bind={"b": 2, "s": 3},
    ),
    # Symbolic conflicts: a condition (W1) where onnxruntime fails at the binding.
    qbinary("QLinearAdd", ["b", 8], ["s", 8], name="QLinearAdd/symbolic-conflict", bind={"b": 2, "s": 3},
            fault=True, symbolic_fault=True),
    qbinary("QLinearMul", ["b", "s"], ["s", "b"], I8, name="QLinearMul/transposed-symbols",
            bind={"b": 2, "s": 2}),
    Case(
        "QLinearConcat/symbolic-off-axis",
        "QLinearConcat",
        [scale(), zp(), In(["b", 3], U8), scale(), zp(), In(["c", 2], U8), scale(), zp()],
        attrs={"axis": 1},
        bind={"b": 2, "c": 3},
        fault=True,
        symbolic_fault=True,
    ),
    Case(
        "MatMulIntegerToFloat/symbolic-batch",
        "MatMulIntegerToFloat",
        [In(["b", 3, 4], U8), In(["b", 4, 5], U8), scale(), scale()],
        bind={"b": 3},
    ),
    Case(
        "MatMulIntegerToFloat/vector-a",
        "MatMulIntegerToFloat",
        [In([4], U8), In([2, 4, 5], I8), scale(), scale(), zp(), zp(I8)],
    ),
    # QLinearConv (com.microsoft): grouped, dilated, NHWC with W in [M, C/group, kh, kw].
    Case(
        "QLinearConv/ms-nhwc-unambiguous",
        "QLinearConv",
        [In([1, 8, 6, 2], U8), scale(), zp(), In([4, 2, 3, 1], I8, const=True, low=-2, high=2), scale(), zp(I8),
         scale(), zp()],
        attrs={"channels_last": 1, "strides": [1, 2], "pads": [0, 0, 0, 0]},
    ),
    Case(
        "QLinearConv/ms-grouped-dilated-int8",
        "QLinearConv",
        [In([2, 4, 9, 9], I8, low=-3, high=3), scale(), zp(I8), In([6, 2, 3, 3], I8, const=True, low=-2, high=2),
         scale(), zp(I8), scale(), zp(I8), In([6], "int32", const=True)],
        attrs={"group": 2, "dilations": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    Case(
        "QLinearConv/ms-symbolic-same",
        "QLinearConv",
        [In(["n", 3, "h", "w"], U8), scale(), zp(), In([4, 3, 3, 3], U8, const=True), scale(), zp(), scale(), zp()],
        attrs={"auto_pad": "SAME_UPPER", "strides": [2, 2]},
        bind={"n": 1, "h": 7, "w": 10},
    ),
    Case(
        "QLinearAveragePool/symbolic-count-include-pad",
        "QLinearAveragePool",
        [In(["n", 2, "h", "w"], U8), scale(), zp(), scale(), zp()],
        attrs={"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1},
        bind={"n": 2, "h": 7, "w": 6},
    ),
    Case(
        "QLinearAveragePool/nhwc-3d",
        "QLinearAveragePool",
        [In([1, 5, 6, 7, 3], I8), scale(), zp(I8), scale(), zp(I8)],
        attrs={"kernel_shape": [2, 3, 2], "channels_last": 1},
    ),
    # Q/DQ: negative axis, float16.
    Case(
        "QuantizeLinear/ms-negative-axis-f16",
        "QuantizeLinear",
        [In([2, 3, 4], "float16"), In([4], "float16", value=[0.1] * 4, const=True), zp(I8, [4])],
        attrs={"axis": -1},
    ),
    Case(
        "DequantizeLinear/ms-per-axis-symbolic",
        "DequantizeLinear",
        [In(["n", 3], I8), In([3], F32, value=[0.1] * 3, const=True), zp(I8, [3])],
        bind={"n": 5},
    ),
    # GatherBlockQuantized: zero points, 2 bits, negative gather axis.
    Case(
        "GatherBlockQuantized/2bit-zero-points",
        "GatherBlockQuantized",
        [In([6, 8], U8, const=True, high=255), In(["n", 2], "int64", low=0, high=6), In([6, 2], F32, const=True),
         In([6, 1], U8, const=True, high=255)],
        attrs={"bits": 2, "block_size": 16, "gather_axis": -2, "quantize_axis": 1},
        bind={"n": 3},
    ),
]
