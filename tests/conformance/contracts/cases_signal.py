"""Contracts of DFT and STFT (src/shape/ops/signal.rs). Left out on purpose: an STFT frame_length of 0 and a
scalar window, which crash onnxruntime 1.31 (a division by zero, an abort) rather than refuse the model."""

from nodecase import Case, In

I64 = "int64"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 20), contract=contract, **kw)


def i64(v, shape=None, const=True):
    return In([] if shape is None else shape, I64, value=v, const=const)


FED = {0: "a length or axis is fed"}
CASES = []
for opset in [17, 20]:
    p = f"DFT-{opset}"
    CASES += [
        # dft-rank, dft-signal.
        case(f"{p}/rank", "DFT", [In(["b", 8, 1])], "dft-rank", opset=opset, bind={"b": 2}),
        case(f"{p}/rank-1", "DFT", [In([8])], "dft-rank", opset=opset, fault=True),
        case(f"{p}/signal-complex", "DFT", [In([2, 8, 2])], "dft-signal", opset=opset),
        case(f"{p}/signal-inverse-real", "DFT", [In([2, 8, 1])], "dft-signal", opset=opset, attrs={"inverse": 1}),
        case(f"{p}/signal-one-sided", "DFT", [In([2, 8, 1])], "dft-signal", opset=opset, attrs={"onesided": 1}),
        case(f"{p}/signal-one-sided-inverse", "DFT", [In([2, 5, 2])], "dft-signal", opset=opset, attrs={"onesided": 1, "inverse": 1}),
        case(f"{p}/signal-3", "DFT", [In([2, 8, 3])], "dft-signal", opset=opset, fault=True),
        case(f"{p}/signal-3-symbolic-batch", "DFT", [In(["b", 8, 3])], "dft-signal", opset=opset, bind={"b": 2}, fault=True),
        case(f"{p}/signal-one-sided-complex", "DFT", [In([2, 8, 2])], "dft-signal", opset=opset, attrs={"onesided": 1}, fault=True),
        case(
            f"{p}/signal-one-sided-inverse-real",
            "DFT",
            [In([2, 8, 1])],
            "dft-signal",
            opset=opset,
            attrs={"onesided": 1, "inverse": 1},
            fault=True,
        ),
        # dft-length: one value, positive.
        case(f"{p}/length", "DFT", [In([2, 8, 1]), i64(16)], "dft-length", opset=opset),
        case(f"{p}/length-fed-1d", "DFT", [In([2, 8, 1]), i64([4], [1], const=False)], "dft-length", opset=opset, unknown_ok=FED),
        case(f"{p}/length-0", "DFT", [In([2, 8, 1]), i64(0)], "dft-length", opset=opset, fault=True),
        case(f"{p}/length-negative", "DFT", [In([2, 8, 1]), i64(-1)], "dft-length", opset=opset, fault=True),
        case(f"{p}/length-2-values", "DFT", [In([2, 8, 1]), i64([8, 8], [2], const=False)], "dft-length", opset=opset, fault=True),
    ]
CASES += [
    # dft-axis: an attribute at 17 (default 1), an input at 20 (default -2).
    case("DFT-17/axis-0", "DFT", [In([2, 8, 1])], "dft-axis", opset=17, attrs={"axis": 0}),
    case("DFT-17/axis-negative", "DFT", [In([2, 8, 1])], "dft-axis", opset=17, attrs={"axis": -3}),
    case("DFT-17/axis-rank-2", "DFT", [In([8, 1])], "dft-axis", opset=17, attrs={"axis": 0}),
    case("DFT-17/axis-last", "DFT", [In([2, 8, 1])], "dft-axis", opset=17, attrs={"axis": 2}, fault=True),
    case("DFT-17/axis-default-rank-2", "DFT", [In([8, 1])], "dft-axis", opset=17, fault=True),
    case("DFT-17/axis-minus-1", "DFT", [In([2, 8, 1])], "dft-axis", opset=17, attrs={"axis": -1}, fault=True),
    case("DFT-20/axis-default-rank-2", "DFT", [In([8, 1])], "dft-axis"),
    case("DFT-20/axis-input", "DFT", [In([2, 8, 1]), None, i64(0)], "dft-axis"),
    case("DFT-20/axis-input-negative-fed", "DFT", [In([2, 8, 1]), None, i64(-3, const=False)], "dft-axis", unknown_ok=FED),
    case("DFT-20/axis-input-last", "DFT", [In([2, 8, 1]), None, i64(2)], "dft-axis", fault=True),
    case("DFT-20/axis-input-minus-1", "DFT", [In([2, 8, 1]), None, i64(-1)], "dft-axis", fault=True),
    case("DFT-20/axis-input-below", "DFT", [In([2, 8, 1]), None, i64(-4)], "dft-axis", fault=True),
    case("DFT-20/axis-input-past", "DFT", [In([2, 8, 1]), None, i64(3)], "dft-axis", fault=True),
]

S = "STFT"
CASES += [
    # stft-signal: [batch, length] or [batch, length, 1 or 2].
    case("STFT/signal", S, [In([2, 16, 1]), i64(4), None, i64(8)], "stft-signal", opset=17),
    case("STFT/signal-2d", S, [In([2, 16]), i64(4), None, i64(8)], "stft-signal", opset=17, unknown_ok={0: "a 2-D signal's length"}),
    case("STFT/signal-complex", S, [In([2, 16, 2]), i64(4), None, i64(8)], "stft-signal", opset=17, attrs={"onesided": 0}),
    case("STFT/signal-1d", S, [In([16]), i64(4), None, i64(8)], "stft-signal", opset=17, fault=True),
    case("STFT/signal-last-3", S, [In([2, 16, 3]), i64(4), None, i64(8)], "stft-signal", opset=17, fault=True),
    case("STFT/signal-4d", S, [In([2, 16, 1, 1]), i64(4), None, i64(8)], "stft-signal", opset=17, fault=True),
    # stft-frame: one value each, positive; a window or a frame_length.
    case("STFT/frame", S, [In(["b", 16, 1]), i64(4), None, i64(8)], "stft-frame", opset=17, bind={"b": 2}),
    case("STFT/frame-window", S, [In([2, 16, 1]), i64(4), In([8], const=True)], "stft-frame", opset=17),
    case("STFT/frame-1d-step-fed", S, [In([2, 16, 1]), i64([4], [1], const=False), None, i64(8)], "stft-frame", opset=17, unknown_ok=FED),
    case("STFT/frame-step-2-values", S, [In([2, 16, 1]), i64([4, 4], [2], const=False), None, i64(8)], "stft-frame", opset=17, fault=True),
    case("STFT/frame-length-2-values", S, [In([2, 16, 1]), i64(4), None, i64([8, 8], [2], const=False)], "stft-frame", opset=17, fault=True),
    case("STFT/frame-step-0", S, [In([2, 16, 1]), i64(0), None, i64(8)], "stft-frame", opset=17, fault=True),
    case("STFT/frame-step-negative", S, [In([2, 16, 1]), i64(-1), None, i64(8)], "stft-frame", opset=17, fault=True),
    case("STFT/frame-length-negative", S, [In([2, 16, 1]), i64(4), None, i64(-2)], "stft-frame", opset=17, fault=True),
    case("STFT/frame-neither", S, [In([2, 16, 1]), i64(4)], "stft-frame", opset=17, fault=True),
    # stft-window: the window as long as frame_length; the frame within the signal.
    case("STFT/window", S, [In([2, 16, 1]), i64(4), In([8], const=True), i64(8)], "stft-window", opset=17),
    case("STFT/window-whole-signal", S, [In([2, 16, 1]), i64(4), None, i64(16)], "stft-window", opset=17),
    case("STFT/window-length", S, [In([2, 16, 1]), i64(4), In([8]), i64(6)], "stft-window", opset=17, fault=True),
    # A fed frame_length is a value of the run, not of the model: not reported, whatever is fed.
    case("STFT/window-length-fed", S, [In([2, 16, 1]), i64(4), In([8]), i64(8, const=False)], "stft-window", opset=17, unknown_ok=FED),
    case("STFT/window-longer-than-signal", S, [In([2, 16, 1]), i64(4), None, i64(20)], "stft-window", opset=17, fault=True),
    case("STFT/window-input-longer-than-signal", S, [In([2, 16, 1]), i64(4), In([20])], "stft-window", opset=17, fault=True),
    case(
        "STFT/window-length-symbolic",
        S,
        [In([2, 16, 1]), i64(4), In(["w"]), i64(6)],
        "stft-window",
        opset=17,
        bind={"w": 8},
        fault=True,
        symbolic_fault=True,
    ),
]
