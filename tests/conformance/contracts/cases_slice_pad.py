"""Contracts of Slice, Tile, Pad and CenterCropPad (src/shape/ops/shape_ops/slice_pad.rs).

Measured against onnxruntime 1.31 (CPU): Slice clamps starts and ends (never an error); Tile refuses a
negative repeat at run; Pad in reflect mode refuses a pad as large as the axis after cropping (the survey,
read from an older source, said it was not checked), edge and wrap take any width; padding an empty axis in
edge or reflect mode, cropping an axis to nothing in edge, reflect or wrap mode, and wrap on an input with an
empty axis are refused. Pad's duplicate axes are refused only when onnx's inference sees them as a constant
(a computed list runs, the last pads winning), so they are not a contract here. CenterCropPad has no kernel:
its function body's Slice, Pad and Max enforce its axes and the length of `shape` (a single size broadcasts
when the shape is computed, and is left out)."""

import numpy as np

from nodecase import Case, In

I64 = "int64"
S, T, P, C = "Slice", "Tile", "Pad", "CenterCropPad"


def case(name, op, inputs, contract, **kw):
    return Case(name, op, inputs, domain="", opset=kw.pop("opset", 17), contract=contract, **kw)


def ints(values, const=True):
    """A 1-D int64 list: a constant, or fed (its values unknown to onnx-lint, its length declared)."""
    return In([len(values)], I64, value=values, const=const)


def arange(shape):
    return In(shape, value=np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


X = In([4, 5, 6])

CASES = [
    # slice-lengths: starts, ends, axes and steps of one length (attributes before opset 10).
    case("Slice/lengths", S, [X, ints([0, 1]), ints([2, 3]), ints([0, 1]), ints([1, 2])], "slice-lengths"),
    case("Slice/lengths-clamped", S, [X, ints([100, -100]), ints([-100, 100]), ints([0, 2])], "slice-lengths"),
    case("Slice/lengths-huge", S, [X, ints([1]), ints([2**63 - 1]), ints([1])], "slice-lengths"),
    case("Slice/lengths-ends", S, [X, ints([0, 0]), ints([2]), ints([1])], "slice-lengths", fault=True),
    case("Slice/lengths-axes", S, [X, ints([0]), ints([2]), ints([1, 2])], "slice-lengths", fault=True),
    case("Slice/lengths-steps", S, [X, ints([0]), ints([2]), ints([1]), ints([1, 1])], "slice-lengths", fault=True),
    case("Slice/lengths-fed", S, [X, ints([0, 0], const=False), ints([2]), ints([1])], "slice-lengths", fault=True),
    case("Slice-9/lengths", S, [X], "slice-lengths", attrs={"starts": [0], "ends": [2], "axes": [1]}, opset=9),
    case("Slice-9/lengths-ends", S, [X], "slice-lengths", attrs={"starts": [0, 0], "ends": [2], "axes": [1]},
         opset=9, fault=True),
    case("Slice-9/lengths-axes", S, [X], "slice-lengths", attrs={"starts": [0], "ends": [2], "axes": [1, 2]},
         opset=9, fault=True),
    # slice-axes: inside the rank, none twice; without axes, one start per leading axis.
    case("Slice/axes-negative", S, [X, ints([0]), ints([2]), ints([-3])], "slice-axes"),
    case("Slice/axes-default", S, [X, ints([1, 1, 1]), ints([3, 3, 3])], "slice-axes"),
    case("Slice/axes-out-of-range", S, [X, ints([0]), ints([2]), ints([3])], "slice-axes", fault=True),
    case("Slice/axes-negative-out-of-range", S, [X, ints([0]), ints([2]), ints([-4])], "slice-axes", fault=True),
    case("Slice/axes-twice", S, [X, ints([0, 0]), ints([2, 2]), ints([1, -2])], "slice-axes", fault=True),
    case("Slice/axes-default-past-rank", S, [X, ints([0] * 4), ints([2] * 4)], "slice-axes", fault=True),
    case("Slice-10/axes-twice", S, [X, ints([0, 0]), ints([2, 2]), ints([1, 1])], "slice-axes", opset=10,
         fault=True),
    case("Slice-9/axes-negative", S, [X], "slice-axes", attrs={"starts": [0], "ends": [2], "axes": [-1]}, opset=9),
    case("Slice-9/axes-out-of-range", S, [X], "slice-axes", attrs={"starts": [0], "ends": [2], "axes": [3]},
         opset=9, fault=True),
    case("Slice-9/axes-twice", S, [X], "slice-axes", attrs={"starts": [0, 0], "ends": [2, 2], "axes": [1, 1]},
         opset=9, fault=True),
    case("Slice-9/axes-default-past-rank", S, [X], "slice-axes", attrs={"starts": [0] * 4, "ends": [2] * 4},
         opset=9, fault=True),
    # slice-steps: no step of 0 (even on an empty axis).
    case("Slice/steps-negative", S, [X, ints([-1]), ints([-100]), ints([2]), ints([-2])], "slice-steps"),
    case("Slice/steps-zero", S, [X, ints([0]), ints([2]), ints([1]), ints([0])], "slice-steps", fault=True),
    case("Slice/steps-zero-empty-axis", S, [In([0, 5]), ints([0]), ints([2]), ints([0]), ints([0])],
         "slice-steps", fault=True),
    # tile-repeats: one repeat per input axis (at load for a constant, at run for a fed list).
    case("Tile/repeats", T, [In([2, 3]), ints([2, 1])], "tile-repeats"),
    case("Tile/repeats-short", T, [In([2, 3]), ints([2])], "tile-repeats", fault=True),
    case("Tile/repeats-long", T, [In([2, 3]), ints([2, 1, 1])], "tile-repeats", fault=True),
    case("Tile/repeats-fed-short", T, [In([2, 3]), ints([2], const=False)], "tile-repeats", fault=True),
    case("Tile-6/repeats-long", T, [In([2, 3]), ints([2, 1, 1])], "tile-repeats", opset=6, fault=True),
    # tile-repeats-value: none negative (0 empties the axis). onnxruntime's kernel, at run.
    case("Tile/repeats-zero", T, [In([2, 3]), ints([0, 1])], "tile-repeats-value"),
    case("Tile/repeats-negative", T, [In([2, 3]), ints([-1, 1])], "tile-repeats-value", fault=True),
    case("Tile/repeats-negative-empty", T, [In([0, 3]), ints([1, -2])], "tile-repeats-value", fault=True),
    case("Tile-6/repeats-negative", T, [In([2, 3]), ints([-1, 1])], "tile-repeats-value", opset=6, fault=True),
    # pad-pads: 2 * rank values, or 2 * len(axes) (opset 18).
    case("Pad/pads", P, [In([2, 3]), ints([0, 1, 0, 1])], "pad-pads", opset=13),
    case("Pad-2/pads", P, [In([2, 3])], "pad-pads", attrs={"pads": [0, 1, 0, 1]}, opset=2),
    case("Pad-18/pads-axes", P, [In([2, 3]), ints([1, 1]), None, ints([1])], "pad-pads", opset=18),
    case("Pad/pads-short", P, [In([2, 3]), ints([0, 1, 0])], "pad-pads", opset=13, fault=True),
    case("Pad-11/pads-long", P, [In([2, 3]), ints([0, 1, 0, 1, 0, 0])], "pad-pads", opset=11, fault=True),
    case("Pad-19/pads-short", P, [In([2, 3]), ints([0, 1, 0])], "pad-pads", opset=19, fault=True),
    case("Pad/pads-fed-short", P, [In([2, 3]), ints([0, 1, 0], const=False)], "pad-pads", opset=13, fault=True),
    case("Pad-2/pads-short", P, [In([2, 3])], "pad-pads", attrs={"pads": [0, 1, 0]}, opset=2, fault=True),
    case("Pad-18/pads-axes-long", P, [In([2, 3]), ints([1, 1, 0, 0]), None, ints([1])], "pad-pads", opset=18,
         fault=True),
    case("Pad-18/pads-axes-fed", P, [In([2, 3]), ints([1, 1, 0, 0]), None, ints([1], const=False)], "pad-pads",
         opset=18, fault=True),
    # pad-axes: inside the rank (a computed axis too: onnxruntime's kernel refuses it at run).
    case("Pad-18/axes-negative", P, [In([2, 3]), ints([1, 1]), None, ints([-1])], "pad-axes", opset=18),
    case("Pad-18/axes-out-of-range", P, [In([2, 3]), ints([1, 1]), None, ints([2])], "pad-axes", opset=18,
         fault=True),
    case("Pad-19/axes-negative-out-of-range", P, [In([2, 3]), ints([1, 1]), None, ints([-3])], "pad-axes",
         opset=19, fault=True),
    # pad-crop: negative pads may empty an axis, not more.
    case("Pad/crop-to-empty", P, [In([3]), ints([-1, -2])], "pad-crop", opset=13),
    case("Pad/crop-and-pad", P, [In([2, 3]), ints([-1, 2, 0, -3])], "pad-crop", opset=13),
    case("Pad/crop-past-empty", P, [In([3]), ints([-2, -2])], "pad-crop", opset=13, fault=True),
    case("Pad-2/crop-past-empty", P, [In([2, 3])], "pad-crop", attrs={"pads": [0, -2, 0, -2]}, opset=2, fault=True),
    # pad-source: edge, reflect and wrap need something to copy.
    case("Pad/source-edge-wide", P, [arange([3]), ints([10, 4])], "pad-source", attrs={"mode": "edge"}, opset=13),
    case("Pad-19/source-wrap-wide", P, [arange([3]), ints([4, 10])], "pad-source", attrs={"mode": "wrap"},
         opset=19),
    case("Pad/source-edge-cropped", P, [arange([3]), ints([-2, 1])], "pad-source", attrs={"mode": "edge"}, opset=13),
    case("Pad/source-edge-empty-unpadded", P, [In([2, 0]), ints([1, 0, 1, 0])], "pad-source",
         attrs={"mode": "edge"}, opset=13),
    case("Pad/source-constant-empty", P, [In([0]), ints([1, 1])], "pad-source", opset=13),
    case("Pad/source-edge-cropped-away", P, [arange([3]), ints([-3, 1])], "pad-source", attrs={"mode": "edge"},
         opset=13, fault=True),
    case("Pad/source-reflect-cropped-away", P, [arange([2, 3]), ints([0, -2, 0, -1])], "pad-source",
         attrs={"mode": "reflect"}, opset=13, fault=True),
    case("Pad-19/source-wrap-cropped-away", P, [arange([3]), ints([-2, -1])], "pad-source", attrs={"mode": "wrap"},
         opset=19, fault=True),
    case("Pad/source-edge-empty-padded", P, [In([0]), ints([1, 1])], "pad-source", attrs={"mode": "edge"},
         opset=13, fault=True),
    case("Pad/source-reflect-empty-padded", P, [In([2, 0]), ints([0, 1, 0, 0])], "pad-source",
         attrs={"mode": "reflect"}, opset=13, fault=True),
    case("Pad-19/source-wrap-empty-unpadded", P, [In([2, 0]), ints([1, 0, 1, 0])], "pad-source",
         attrs={"mode": "wrap"}, opset=19, fault=True),
    # pad-reflect: each pad below the axis's size after cropping (so 2 elements or more where padded).
    case("Pad/reflect", P, [arange([3]), ints([2, 2])], "pad-reflect", attrs={"mode": "reflect"}, opset=13),
    case("Pad/reflect-cropped", P, [arange([5]), ints([-2, 2])], "pad-reflect", attrs={"mode": "reflect"},
         opset=13),
    case("Pad/reflect-two", P, [arange([2, 3]), ints([1, 0, 1, 0])], "pad-reflect", attrs={"mode": "reflect"},
         opset=13),
    case("Pad/reflect-one-unpadded", P, [arange([1, 3]), ints([0, 1, 0, 1])], "pad-reflect",
         attrs={"mode": "reflect"}, opset=13),
    case("Pad-18/reflect-axes", P, [arange([2, 3]), ints([2, 0]), None, ints([1])], "pad-reflect",
         attrs={"mode": "reflect"}, opset=18),
    case("Pad/reflect-as-wide", P, [arange([3]), ints([3, 0])], "pad-reflect", attrs={"mode": "reflect"},
         opset=13, fault=True),
    case("Pad/reflect-wider", P, [arange([3]), ints([0, 10])], "pad-reflect", attrs={"mode": "reflect"},
         opset=13, fault=True),
    case("Pad/reflect-cropped-wide", P, [arange([5]), ints([-2, 3])], "pad-reflect", attrs={"mode": "reflect"},
         opset=13, fault=True),
    case("Pad/reflect-one", P, [arange([1]), ints([1, 1])], "pad-reflect", attrs={"mode": "reflect"}, opset=13,
         fault=True),
    case("Pad/reflect-one-inner", P, [arange([3, 1]), ints([0, 1, 0, 0])], "pad-reflect",
         attrs={"mode": "reflect"}, opset=13, fault=True),
    case("Pad-11/reflect-as-wide", P, [arange([2, 3]), ints([0, 3, 0, 0])], "pad-reflect",
         attrs={"mode": "reflect"}, opset=11, fault=True),
    case("Pad-2/reflect-as-wide", P, [arange([3])], "pad-reflect", attrs={"mode": "reflect", "pads": [3, 3]},
         opset=2, fault=True),
    case("Pad-18/reflect-axes-as-wide", P, [arange([2, 3]), ints([3, 0]), None, ints([-1])], "pad-reflect",
         attrs={"mode": "reflect"}, opset=18, fault=True),
    # center-crop-pad-shape: one size per axis of `axes` (every axis without them).
    case("CenterCropPad/shape", C, [X, ints([2, 5, 8])], "center-crop-pad-shape", opset=18),
    case("CenterCropPad/shape-axes", C, [X, ints([2, 8])], "center-crop-pad-shape", attrs={"axes": [0, 2]},
         opset=18),
    case("CenterCropPad/shape-one-fed", C, [X, ints([2], const=False)], "center-crop-pad-shape",
         attrs={"axes": [0, 2]}, opset=18, unknown_ok={0: "a fed shape: the sizes are not known"}),
    case("CenterCropPad/shape-short", C, [X, ints([2, 5])], "center-crop-pad-shape", opset=18, fault=True),
    case("CenterCropPad/shape-long", C, [X, ints([2, 5, 8, 1])], "center-crop-pad-shape", opset=18, fault=True),
    case("CenterCropPad/shape-axes-long", C, [X, ints([2, 3, 4])], "center-crop-pad-shape",
         attrs={"axes": [0, 2]}, opset=18, fault=True),
    case("CenterCropPad/shape-fed-short", C, [X, ints([2, 5], const=False)], "center-crop-pad-shape", opset=18,
         fault=True),
    # center-crop-pad-axes: inside the rank, none twice.
    case("CenterCropPad/axes-negative", C, [X, ints([2])], "center-crop-pad-axes", attrs={"axes": [-1]}, opset=18),
    case("CenterCropPad/axes-out-of-range", C, [X, ints([2])], "center-crop-pad-axes", attrs={"axes": [3]},
         opset=18, fault=True),
    case("CenterCropPad/axes-negative-out-of-range", C, [X, ints([2])], "center-crop-pad-axes",
         attrs={"axes": [-4]}, opset=18, fault=True),
    case("CenterCropPad/axes-twice", C, [X, ints([2, 2])], "center-crop-pad-axes", attrs={"axes": [1, -2]},
         opset=18, fault=True),
]
