//! Data propagation end to end, on whole models: float scales from `Constant` nodes and initializers
//! into Resize and Upsample, computed pads (torch's `F.pad` chain), Slice with a computed symbolic
//! end, float values cast to integers, Range and Shape with `start`/`end` over symbolic sizes, a
//! negated comparison of sizes that settles an If. Each model is built here in a few lines, and each
//! size checked is the one onnxruntime computes.

use bytes::Bytes;
use onnx_lint::diagnostics::Severity;
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::*;
use prost::Message;

use crate::support::lint::{Loaded, lint_bytes, shape_of};
use crate::support::proto::{opset, typed};

fn node(op: &str, inputs: &[&str], outputs: &[&str], attrs: Vec<AttributeProto>) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(outputs[0].to_owned()),
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: outputs.iter().map(|s| s.to_string()).collect(),
        attribute: attrs,
        ..Default::default()
    }
}

fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    }
}

fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    }
}

fn attr_s(name: &str, v: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec().into()),
        ..Default::default()
    }
}

fn attr_floats(name: &str, v: &[f32]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Floats as i32),
        floats: v.to_vec(),
        ..Default::default()
    }
}

fn attr_t(name: &str, t: TensorProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(t),
        ..Default::default()
    }
}

/// A 1-D FLOAT tensor stored as raw little-endian bytes, as exporters write it.
fn float_raw(name: &str, v: &[f32]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![v.len() as i64],
        data_type: Some(DataType::Float as i32),
        raw_data: Some(
            v.iter()
                .flat_map(|x| x.to_le_bytes())
                .collect::<Vec<u8>>()
                .into(),
        ),
        ..Default::default()
    }
}

fn ints(name: &str, v: &[i64]) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: vec![v.len() as i64],
        data_type: Some(DataType::Int64 as i32),
        int64_data: v.to_vec(),
        ..Default::default()
    }
}

/// A `Constant` node holding `t`.
fn constant(out: &str, t: TensorProto) -> NodeProto {
    node("Constant", &[], &[out], vec![attr_t("value", t)])
}

fn load(
    opset: i64,
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
) -> Loaded {
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(GraphProto {
            node: nodes,
            name: Some("g".into()),
            input: inputs,
            initializer: initializers,
            ..Default::default()
        }),
        ..Default::default()
    };
    let m = lint_bytes(Bytes::from(m.encode_to_vec())).expect("decodes");
    let bad: Vec<_> = m
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
    m
}

/// `F.interpolate(scale_factor=2)` after a stride-32 backbone: Resize with scales from a `Constant`
/// node on `[1, 64, ceil(h/32), ceil(w/32)]` (the stride-32 sizes made here by a step-32 Slice); the
/// same with scales assembled by a Concat of two constants, and on a known `2x6` input.
#[test]
fn resize_by_constant_scales_after_a_stride_32_backbone() {
    let big = i64::from(i32::MAX);
    let nodes = vec![
        node(
            "Slice",
            &["x", "zeros", "ends", "axes", "steps"],
            &["s32"],
            vec![],
        ),
        constant("scales", float_raw("", &[1.0, 1.0, 2.0, 2.0])),
        node(
            "Resize",
            &["s32", "", "scales"],
            &["up"],
            vec![attr_s("mode", "nearest")],
        ),
        constant("ones", float_raw("", &[1.0, 1.0])),
        node(
            "Constant",
            &[],
            &["twos"],
            vec![attr_floats("value_floats", &[2.0, 2.0])],
        ),
        node(
            "Concat",
            &["ones", "twos"],
            &["scales2"],
            vec![attr_i("axis", 0)],
        ),
        node("Resize", &["s32", "", "scales2"], &["up2"], vec![]),
        node("Resize", &["k", "", "twos"], &["k2"], vec![]),
    ];
    let m = load(
        13,
        nodes,
        vec![
            typed("x", DataType::Float, &["1", "64", "h", "w"]),
            typed("k", DataType::Float, &["2", "6"]),
        ],
        vec![
            ints("zeros", &[0, 0]),
            ints("ends", &[big, big]),
            ints("axes", &[2, 3]),
            ints("steps", &[32, 32]),
        ],
    );
    assert_eq!(shape_of(&m, "s32"), "[1, 64, ceil(h/32), ceil(w/32)]");
    assert_eq!(shape_of(&m, "up"), "[1, 64, ceil(h/32)*2, ceil(w/32)*2]");
    assert_eq!(shape_of(&m, "up2"), "[1, 64, ceil(h/32)*2, ceil(w/32)*2]");
    assert_eq!(shape_of(&m, "k2"), "[4, 12]");
}

/// Upsample (opset 9) with its scales in an initializer, and a scale computed by Mul of constants.
#[test]
fn upsample_scales_from_an_initializer_and_from_arithmetic() {
    let nodes = vec![
        node("Upsample", &["x", "scales"], &["up"], vec![]),
        node("Mul", &["scales", "half"], &["halved"], vec![]),
        node("Upsample", &["x", "halved"], &["same"], vec![]),
    ];
    let m = load(
        9,
        nodes,
        vec![typed("x", DataType::Float, &["N", "3", "H", "5"])],
        vec![
            float_raw("scales", &[2.0, 2.0, 2.0, 3.0]),
            float_raw("half", &[0.5]),
        ],
    );
    assert_eq!(shape_of(&m, "up"), "[N*2, 6, H*2, 15]");
    assert_eq!(shape_of(&m, "same"), "[N, 3, H, 7]");
}

/// BERT's `position_ids[:, :seq]`: a `[1, 512]` buffer sliced to a sequence length read from the
/// input's shape is `[1, min(seq, 512)]` — not `seq`, which would assume seq <= 512.
#[test]
fn slice_of_a_buffer_to_a_computed_length_is_a_min() {
    let nodes = vec![
        node("Shape", &["ids"], &["s"], vec![]),
        node("Gather", &["s", "one"], &["seq"], vec![attr_i("axis", 0)]),
        node("Unsqueeze", &["seq", "zero"], &["end"], vec![]),
        node("Slice", &["pos", "zero", "end", "one"], &["p"], vec![]),
        node(
            "Slice",
            &["pos", "zero", "minus_one", "one"],
            &["q"],
            vec![],
        ),
    ];
    let mut one = ints("one", &[1]);
    one.dims.clear();
    let m = load(
        13,
        nodes,
        vec![
            typed("ids", DataType::Int64, &["batch", "seq"]),
            typed("pos", DataType::Int64, &["1", "512"]),
        ],
        vec![one, ints("zero", &[0]), ints("minus_one", &[-1])],
    );
    assert_eq!(shape_of(&m, "p"), "[1, min(seq, 512)]");
    assert_eq!(shape_of(&m, "q"), "[1, 511]");
}

/// torch's `F.pad(x, (2, 2), mode="reflect")` export: the pads list is extended with zeros,
/// reshaped to `[-1, 2]`, flipped, transposed and flattened before Pad; on a speech model's
/// `[seq, 832]` frames the result is `[seq, 836]`.
#[test]
fn torch_pad_chain_reaches_pad() {
    let big = i64::from(i32::MAX);
    let nodes = vec![
        node(
            "ConstantOfShape",
            &["extension"],
            &["zeros"],
            vec![attr_t("value", ints("", &[0]))],
        ),
        node(
            "Concat",
            &["pad", "zeros"],
            &["padded"],
            vec![attr_i("axis", 0)],
        ),
        node("Reshape", &["padded", "pairs"], &["matrix"], vec![]),
        node(
            "Slice",
            &["matrix", "minus_one", "minus_big", "zero", "minus_one"],
            &["flipped"],
            vec![],
        ),
        node(
            "Transpose",
            &["flipped"],
            &["t"],
            vec![attr_ints("perm", &[1, 0])],
        ),
        node("Reshape", &["t", "flat"], &["pads"], vec![]),
        node(
            "Cast",
            &["pads"],
            &["pads64"],
            vec![attr_i("to", DataType::Int64 as i64)],
        ),
        node(
            "Pad",
            &["x", "pads64"],
            &["y"],
            vec![attr_s("mode", "reflect")],
        ),
    ];
    let m = load(
        13,
        nodes,
        vec![typed("x", DataType::Float, &["seq", "832"])],
        vec![
            ints("pad", &[2, 2]),
            ints("extension", &[2]),
            ints("pairs", &[-1, 2]),
            ints("minus_one", &[-1]),
            ints("minus_big", &[-big]),
            ints("zero", &[0]),
            ints("flat", &[-1]),
        ],
    );
    assert_eq!(shape_of(&m, "matrix"), "[2, 2]");
    assert_eq!(shape_of(&m, "pads64"), "[4]");
    assert_eq!(shape_of(&m, "y"), "[seq, 836]");
}

/// Float values cast to integers truncate toward zero (repeats of 1.0 and 2.9 are 1 and 2); a Range
/// over a symbolic length with step 2; Shape with `start`/`end` (opset 15), Gather of a negative
/// index, and Size.
#[test]
fn casts_ranges_and_shape_slices() {
    let nodes = vec![
        node(
            "Constant",
            &[],
            &["reps_f"],
            vec![attr_floats("value_floats", &[1.0, 2.9])],
        ),
        node(
            "Cast",
            &["reps_f"],
            &["reps"],
            vec![attr_i("to", DataType::Int64 as i64)],
        ),
        node("Tile", &["x", "reps"], &["tiled"], vec![]),
        node("Shape", &["x"], &["tail"], vec![attr_i("start", -2)]),
        node(
            "Gather",
            &["tail", "minus_one"],
            &["last"],
            vec![attr_i("axis", 0)],
        ),
        node(
            "Shape",
            &["x"],
            &["head"],
            vec![attr_i("start", 0), attr_i("end", 1)],
        ),
        node("Gather", &["head", "zero"], &["n"], vec![attr_i("axis", 0)]),
        node("Range", &["zero", "n", "two"], &["r"], vec![]),
        node("Size", &["x"], &["size"], vec![]),
        node("Range", &["zero", "size", "last"], &["r2"], vec![]),
        node("ConstantOfShape", &["tail"], &["c"], vec![]),
    ];
    let scalar = |name: &str, v: i64| {
        let mut t = ints(name, &[v]);
        t.dims.clear();
        t
    };
    let m = load(
        15,
        nodes,
        vec![typed("x", DataType::Float, &["N", "3"])],
        vec![scalar("minus_one", -1), scalar("zero", 0), scalar("two", 2)],
    );
    assert_eq!(shape_of(&m, "tiled"), "[N, 6]");
    assert_eq!(shape_of(&m, "tail"), "[2]");
    assert_eq!(shape_of(&m, "r"), "[ceil(N/2)]");
    assert_eq!(shape_of(&m, "r2"), "[N]");
    assert_eq!(shape_of(&m, "c"), "[N, 3]");
}

/// Shape arithmetic whose scalar operand `onnx-lint expand` made explicit (`Mul(Shape(ids),
/// Expand(2, [2]))`) keeps its values: the expanded model is inferred as well as the original, so a
/// second `expand` has nothing to add.
#[test]
fn an_expanded_scalar_in_shape_arithmetic_keeps_its_values() {
    let mut two = ints("two", &[2]);
    two.dims.clear();
    let nodes = vec![
        node("Shape", &["ids"], &["s"], vec![]),
        node("Expand", &["two", "len"], &["two_x2"], vec![]),
        node("Mul", &["s", "two_x2"], &["doubled"], vec![]),
        node("ConstantOfShape", &["doubled"], &["z"], vec![]),
        node("Expand", &["s", "len"], &["s_again"], vec![]),
        node("ConstantOfShape", &["s_again"], &["z2"], vec![]),
    ];
    let m = load(
        13,
        nodes,
        vec![typed("ids", DataType::Int64, &["batch", "seq"])],
        vec![two, ints("len", &[2])],
    );
    assert_eq!(shape_of(&m, "two_x2"), "[2]");
    assert_eq!(shape_of(&m, "z"), "[batch*2, seq*2]");
    assert_eq!(
        shape_of(&m, "z2"),
        "[batch, seq]",
        "a vector of the target's length"
    );
}

/// Silero VAD's LSTM input (issue 41): `Not(Equal(Size(Shape(x)), 2))` chooses between
/// `Unsqueeze(x, 0)` and `Identity(x)`, whose ranks differ, and the LSTM gets the choice unsqueezed
/// once more. With x of rank 2 the Identity is taken and X is `[1, 1, 4]`; with x of rank 3 the
/// Unsqueeze is, X has rank 5, and onnxruntime refuses the LSTM ("Input X must have 3 dimensions
/// only"). Without Not's value the If's outputs were joined, the rank lost, and the LSTM unchecked.
#[test]
fn a_negated_size_comparison_settles_an_if_whose_branches_differ_in_rank() {
    fn lint_with_x(dims: &[&str]) -> Loaded {
        let graph_attr = |name: &str, n: NodeProto, out: &str| AttributeProto {
            name: Some(name.into()),
            r#type: Some(AttributeType::Graph as i32),
            g: Some(GraphProto {
                name: Some(name.into()),
                node: vec![n],
                output: vec![ValueInfoProto {
                    name: Some(out.into()),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut choose = node("If", &["cond"], &["chosen"], vec![]);
        choose.attribute = vec![
            graph_attr(
                "then_branch",
                node("Unsqueeze", &["x", "zero"], &["unsqueezed"], vec![]),
                "unsqueezed",
            ),
            graph_attr(
                "else_branch",
                node("Identity", &["x"], &["same"], vec![]),
                "same",
            ),
        ];
        let weights = |name: &str, dims: &[i64]| TensorProto {
            name: Some(name.into()),
            dims: dims.to_vec(),
            data_type: Some(DataType::Float as i32),
            float_data: vec![0.0; dims.iter().product::<i64>() as usize],
            ..Default::default()
        };
        let scalar_two = TensorProto {
            name: Some("two".into()),
            data_type: Some(DataType::Int64 as i32),
            int64_data: vec![2],
            ..Default::default()
        };
        let nodes = vec![
            node("Shape", &["x"], &["shape"], vec![]),
            node("Size", &["shape"], &["rank"], vec![]),
            node("Equal", &["rank", "two"], &["is_2d"], vec![]),
            node("Not", &["is_2d"], &["cond"], vec![]),
            choose,
            node("Unsqueeze", &["chosen", "zero"], &["seq"], vec![]),
            node(
                "LSTM",
                &["seq", "w", "r"],
                &["y", "y_h", "y_c"],
                vec![attr_i("hidden_size", 2)],
            ),
        ];
        let m = ModelProto {
            ir_version: Some(9),
            opset_import: vec![opset("", 17)],
            graph: Some(GraphProto {
                node: nodes,
                name: Some("g".into()),
                input: vec![typed("x", DataType::Float, dims)],
                initializer: vec![
                    scalar_two,
                    ints("zero", &[0]),
                    weights("w", &[1, 8, 4]),
                    weights("r", &[1, 8, 2]),
                ],
                ..Default::default()
            }),
            ..Default::default()
        };
        lint_bytes(Bytes::from(m.encode_to_vec())).expect("decodes")
    }
    let errors = |m: &Loaded| -> Vec<String> {
        m.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{} {:?} {:?}", d.code.as_str(), d.node, d.contract))
            .collect()
    };

    let two_d = lint_with_x(&["1", "4"]);
    assert_eq!(errors(&two_d), Vec::<String>::new());
    assert_eq!(shape_of(&two_d, "chosen"), "[1, 4]");
    assert_eq!(shape_of(&two_d, "y"), "[1, 1, 1, 2]");

    let three_d = lint_with_x(&["1", "4", "2"]);
    assert_eq!(shape_of(&three_d, "chosen"), "[1, 1, 4, 2]");
    assert_eq!(
        errors(&three_d),
        vec!["E2 Some(\"y\") Some(\"recurrent-x-rank\")".to_owned()]
    );
}
