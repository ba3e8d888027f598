//! Symbolic dimensions stay symbolic and related, end to end: sizes computed from symbols (`seq*12`,
//! `batch*seq`, `seq+1`) through Reshape, Flatten, Concat, Slice and shape arithmetic, and the binding
//! of a symbol to a number by a declared shape reported as I002 (once per symbol and size).

use crate::support::proto::node;
use bytes::Bytes;
use onnx_lint::diagnostics::{Code, Diagnostic, Severity};
use onnx_lint::proto::attribute_proto::AttributeType;
use onnx_lint::proto::tensor_proto::DataType;
use onnx_lint::proto::*;
use prost::Message;

use crate::support::lint::{Loaded, lint_bytes, shape_of};
use crate::support::proto::typed;

fn with_int(mut n: NodeProto, name: &str, v: i64) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(v),
        ..Default::default()
    });
    n
}

fn float(name: &str, dims: &[&str]) -> ValueInfoProto {
    typed(name, DataType::Float, dims)
}

/// A float value of undeclared shape.
fn float_any(name: &str) -> ValueInfoProto {
    let mut v = float(name, &[]);
    if let Some(type_proto::Value::TensorType(t)) = v.r#type.as_mut().and_then(|t| t.value.as_mut())
    {
        t.shape = None;
    }
    v
}

fn ints(name: &str, values: &[i64], scalar: bool) -> TensorProto {
    TensorProto {
        name: Some(name.into()),
        dims: if scalar {
            vec![]
        } else {
            vec![values.len() as i64]
        },
        data_type: Some(DataType::Int64 as i32),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

struct Graph {
    nodes: Vec<NodeProto>,
    inputs: Vec<ValueInfoProto>,
    outputs: Vec<ValueInfoProto>,
    value_info: Vec<ValueInfoProto>,
    initializers: Vec<TensorProto>,
}

fn load(g: Graph) -> Loaded {
    let m = ModelProto {
        ir_version: Some(9),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(GraphProto {
            node: g.nodes,
            name: Some("g".into()),
            input: g.inputs,
            output: g.outputs,
            value_info: g.value_info,
            initializer: g.initializers,
            ..Default::default()
        }),
        ..Default::default()
    };
    lint_bytes(Bytes::from(m.encode_to_vec())).expect("decodes")
}

fn with_code(m: &Loaded, code: Code) -> Vec<&Diagnostic> {
    m.diagnostics.iter().filter(|d| d.code == code).collect()
}

/// No finding but information: the models are valid.
fn assert_clean(m: &Loaded) {
    let bad: Vec<_> = m
        .diagnostics
        .iter()
        .filter(|d| d.severity != Severity::Info)
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The attention-head pattern: `x [batch, seq, 768]` reshaped to `[0, -1, 64]`, and the same target
/// computed from the shape (`Concat(batch, Mul(seq, 12), 64)`); Flatten, Concat, Slice of symbolic sizes.
#[test]
fn symbolic_sizes_through_reshape_flatten_concat_slice() {
    let nodes = vec![
        node("Reshape", "heads", &["x", "target"], &["h"]),
        node("Shape", "shape", &["x"], &["s"]),
        with_int(
            node("Gather", "get_seq", &["s", "one"], &["seq"]),
            "axis",
            0,
        ),
        with_int(node("Gather", "get_b", &["s", "zero"], &["b"]), "axis", 0),
        node("Mul", "times12", &["seq", "twelve"], &["seq12"]),
        node("Unsqueeze", "u1", &["b", "axes0"], &["b1"]),
        node("Unsqueeze", "u2", &["seq12", "axes0"], &["seq12_1"]),
        with_int(
            node(
                "Concat",
                "cat_target",
                &["b1", "seq12_1", "d64"],
                &["target2"],
            ),
            "axis",
            0,
        ),
        node("Reshape", "heads2", &["x", "target2"], &["h2"]),
        node("Add", "same", &["h", "h2"], &["sum"]),
        with_int(node("Flatten", "flat", &["x"], &["f"]), "axis", 2),
        with_int(node("Concat", "cat", &["x", "cls"], &["xc"]), "axis", 1),
        node(
            "Slice",
            "drop_first",
            &["xc", "one_v", "big", "one_v"],
            &["xs"],
        ),
        node("Add", "residual", &["xs", "x"], &["y"]),
    ];
    let m = load(Graph {
        nodes,
        inputs: vec![
            float("x", &["batch", "seq", "768"]),
            float("cls", &["batch", "1", "768"]),
        ],
        outputs: vec![float_any("sum"), float_any("f"), float_any("y")],
        value_info: vec![],
        initializers: vec![
            ints("target", &[0, -1, 64], false),
            ints("zero", &[0], true),
            ints("one", &[1], true),
            ints("twelve", &[12], true),
            ints("axes0", &[0], false),
            ints("d64", &[64], false),
            ints("one_v", &[1], false),
            ints("big", &[i64::MAX], false),
        ],
    });
    assert_clean(&m);
    assert_eq!(shape_of(&m, "h"), "[batch, seq*12, 64]");
    assert_eq!(shape_of(&m, "seq12"), "[]");
    assert_eq!(shape_of(&m, "target2"), "[3]");
    assert_eq!(shape_of(&m, "h2"), "[batch, seq*12, 64]");
    // Both sides of the Add are the same expression: no broadcast condition.
    assert_eq!(shape_of(&m, "sum"), "[batch, seq*12, 64]");
    assert_eq!(shape_of(&m, "f"), "[batch*seq, 768]");
    assert_eq!(shape_of(&m, "xc"), "[batch, seq+1, 768]");
    // seq+1 from 1 to the end is exactly seq.
    assert_eq!(shape_of(&m, "xs"), "[batch, seq, 768]");
    assert_eq!(shape_of(&m, "y"), "[batch, seq, 768]");
}

/// Exporters name sizes with expressions (`h + 1`): a product of two is printed with parentheses, as
/// a reader (a script, a person) must compute it: `(h + 1)*(w + 1)`, not `h + 1*w + 1`.
#[test]
fn sizes_named_with_expressions_print_with_their_parentheses() {
    let m = load(Graph {
        nodes: vec![
            with_int(node("Flatten", "flat", &["x"], &["f"]), "axis", 0),
            node("Neg", "neg", &["f"], &["y"]),
        ],
        inputs: vec![float("x", &["num-h", "w + 1"])],
        outputs: vec![float_any("y")],
        value_info: vec![],
        initializers: vec![],
    });
    assert_clean(&m);
    // `num-h` is a name (a hyphen joins two words), `w + 1` an expression over `w`.
    assert_eq!(shape_of(&m, "f"), "[1, (num-h)*w+(num-h)]");
}

/// The dynamo exporter names sizes with expressions: `2*h2` is twice the symbol `h2`, so a pool by 2
/// and a Concat of two copies give it back (`ceil(2*h2/2)*2` is `2*h2`) and adding it to the input
/// is no W1. With the name an opaque symbol `A`, `ceil(A/2)*2` against `A` was one (it fails at `A =
/// 3`). A name that is not an expression (`2h`, `h-w`) stays a symbol, and there the W1 stays too.
#[test]
fn expression_shaped_dim_params_are_read_as_expressions() {
    let pooled = |x: &str, p: &str| {
        with_ints(
            with_ints(
                node("MaxPool", &format!("pool_{x}"), &[x], &[p]),
                "kernel_shape",
                &[1],
            ),
            "strides",
            &[2],
        )
    };
    let model = |dim: &str| {
        load(Graph {
            nodes: vec![
                pooled("x", "p"),
                with_int(node("Concat", "twice", &["p", "p"], &["c"]), "axis", 2),
                node("Add", "add", &["x", "c"], &["y"]),
            ],
            inputs: vec![float("x", &["1", "1", dim])],
            outputs: vec![float_any("y")],
            value_info: vec![],
            initializers: vec![],
        })
    };
    let m = model("2*h2");
    assert_eq!(shape_of(&m, "x"), "[1, 1, h2*2]");
    assert_eq!(shape_of(&m, "p"), "[1, 1, h2]");
    assert_eq!(shape_of(&m, "c"), "[1, 1, h2*2]");
    assert_clean(&m);
    for opaque in ["2h", "h-w"] {
        let m = model(opaque);
        let w1 = with_code(&m, Code::PossibleBroadcastError);
        assert_eq!(w1.len(), 1, "{opaque}: {w1:#?}");
        assert!(w1[0].message.contains("fails for"), "{}", w1[0].message);
    }
}

/// A declared size in value_info where inference has a symbol: the number is kept (downstream sizes
/// are known), the binding reported once per symbol and size. A graph output declared so keeps the
/// symbol, with a T004: onnxruntime computes the output at every size and only warns.
#[test]
fn declared_size_binds_a_symbol_once() {
    let nodes = vec![
        node("Relu", "relu", &["x"], &["r"]),
        node("Sigmoid", "sig", &["x"], &["s"]),
        node("Tanh", "tanh", &["x"], &["t"]),
        node("Add", "add", &["r", "b"], &["y"]),
    ];
    let m = load(Graph {
        nodes,
        inputs: vec![float("x", &["N", "3"]), float("b", &["3", "1"])],
        outputs: vec![float_any("y"), float("s", &["3", "3"])],
        value_info: vec![float("r", &["3", "3"]), float("t", &["3", "3"])],
        initializers: vec![],
    });
    assert_eq!(shape_of(&m, "r"), "[3, 3]");
    assert_eq!(shape_of(&m, "t"), "[3, 3]");
    // Known from the declaration: [3, 3] + [3, 1] is [3, 3] with no condition on N.
    assert_eq!(shape_of(&m, "y"), "[3, 3]");
    let bound = with_code(&m, Code::SymbolBinding);
    assert_eq!(bound.len(), 1, "{bound:#?}");
    let d = bound[0];
    assert_eq!(d.severity, Severity::Info);
    assert_eq!(
        d.message,
        "symbol N is bound to 3 by the declared shape of value 'r' (node 'relu')"
    );
    assert_eq!(d.node.as_deref(), Some("relu"));
    assert_eq!(d.graph, "main");
    assert_eq!(shape_of(&m, "s"), "[N, 3]");
    let t004: Vec<&str> = with_code(&m, Code::DeclaredShape)
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        t004,
        [
            "graph output 's' is declared with size 3 on axis 0, but inference gives N: the \
          declaration holds only where N = 3 (onnxruntime computes N and warns at run time)"
        ]
    );
}

/// An expression binds like a symbol; a declared size the expression cannot take is a contradiction.
#[test]
fn expression_bindings_and_impossible_sizes() {
    let nodes = vec![
        node("Reshape", "heads", &["x", "target"], &["h"]),
        node("Reshape", "heads_b", &["x", "target"], &["h2"]),
        node("Relu", "relu", &["x"], &["r"]),
        node("Identity", "id", &["w"], &["w2"]),
        node("Identity", "id3", &["w"], &["w3"]),
        node("Identity", "id4", &["w"], &["w4"]),
    ];
    let m = load(Graph {
        nodes,
        inputs: vec![
            float("x", &["batch", "seq", "768"]),
            float("w", &["2", "3"]),
        ],
        // Graph outputs declared so would keep their symbols (a T004 each): none here.
        outputs: vec![],
        value_info: vec![
            float("h", &["batch", "120", "64"]),
            float("h2", &["batch", "100", "64"]),
            // `seq+2` would never be 1; `seq` can be anything.
            float("r", &["batch", "0", "768"]),
            float("w2", &["batch", "3"]),
            // A symbol no input has is no size a user feeds: read as unknown, it binds nothing.
            float("w3", &["K", "3"]),
            // An exporter's expression: named in its own spelling beside ours.
            float("w4", &["((batch - 1)//2) + 1", "3"]),
        ],
        initializers: vec![ints("target", &[0, -1, 64], false)],
    });
    let mut bound: Vec<&str> = with_code(&m, Code::SymbolBinding)
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    bound.sort();
    assert_eq!(
        bound,
        vec![
            "symbol batch of the declared shape of value 'w2' is bound to 2 by inference (node 'id')",
            "symbol ceil(batch/2) (declared as '((batch - 1)//2) + 1') of the declared \
             shape of value 'w4' is bound to 2 by inference (node 'id4')",
            "symbol seq is bound to 0 by the declared shape of value 'r' (node 'relu')",
            "symbol seq*12 is bound to 120 by the declared shape of value 'h' (node 'heads')",
        ]
    );
    assert_eq!(shape_of(&m, "h"), "[batch, 120, 64]");
    assert_eq!(shape_of(&m, "w2"), "[2, 3]");
    assert_eq!(shape_of(&m, "w3"), "[2, 3]");
    // 100 is no multiple of 12: a contradiction, and the inferred expression stays.
    let t004: Vec<&str> = with_code(&m, Code::DeclaredShape)
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(
        t004,
        vec!["value 'h2' is declared with size 100 on axis 1, but inference gives seq*12"]
    );
    assert_eq!(shape_of(&m, "h2"), "[batch, seq*12, 64]");
}

#[test]
fn a_matmul_contraction_binds_a_symbol_to_the_other_side_once() {
    // x: [batch, K] times w: [64, 10] equates K with 64; two such MatMuls report it once.
    let m = load(Graph {
        nodes: vec![
            node("MatMul", "mm1", &["x", "w"], &["y1"]),
            node("MatMul", "mm2", &["x", "w"], &["y2"]),
        ],
        inputs: vec![float("x", &["batch", "K"])],
        outputs: vec![float_any("y1"), float_any("y2")],
        value_info: vec![],
        initializers: vec![TensorProto {
            name: Some("w".into()),
            dims: vec![64, 10],
            data_type: Some(DataType::Float as i32),
            raw_data: Some(Bytes::from(vec![0u8; 64 * 10 * 4])),
            ..Default::default()
        }],
    });
    assert_clean(&m);
    let b = with_code(&m, Code::SymbolBinding);
    assert_eq!(b.len(), 1, "{b:#?}");
    let msg = &b[0].message;
    assert!(
        msg.contains("symbol K is bound to 64 by the contraction of 'mm1'"),
        "{msg}"
    );
    assert_eq!(shape_of(&m, "y1"), "[batch, 10]");
}

#[test]
fn a_reshape_of_a_symbolic_count_to_known_sizes_binds_it() {
    let m = load(Graph {
        nodes: vec![node("Reshape", "to_fixed", &["x", "s"], &["y"])],
        inputs: vec![float("x", &["N", "768"])],
        outputs: vec![float_any("y")],
        value_info: vec![],
        initializers: vec![ints("s", &[4, 768], false)],
    });
    assert_clean(&m);
    let b = with_code(&m, Code::SymbolBinding);
    assert_eq!(b.len(), 1, "{b:#?}");
    assert!(
        b[0].message
            .contains("symbol N*768 is bound to 3072 by the reshape of 'to_fixed'"),
        "{}",
        b[0].message
    );
    assert_eq!(shape_of(&m, "y"), "[4, 768]");
}

fn with_ints(mut n: NodeProto, name: &str, v: &[i64]) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: v.to_vec(),
        ..Default::default()
    });
    n
}

/// A convolution with square stride and pads.
fn conv(name: &str, x: &str, w: &str, y: &str, stride: i64, pad: i64) -> NodeProto {
    let n = with_ints(node("Conv", name, &[x, w], &[y]), "strides", &[stride; 2]);
    with_ints(n, "pads", &[pad; 4])
}

/// Strided convolutions and pools of symbolic sizes: a ResNet stem and a downsampling residual block
/// on `[N, 3, h, w]`. Both branches of the block compute `floor((x - 1)/2) + 1` in their own way
/// (3x3 with pad 1, 1x1 with none); they meet in one expression, so their Add is clean. A U-Net style
/// skip that adds the block's output upsampled by 2 to the stem's output is not: `ceil(h/8)*2` and
/// `ceil(h/4)` differ for some `h` (4, say), and that Add gets a W1.
#[test]
fn strided_convolutions_keep_symbolic_sizes_exact() {
    let nodes = vec![
        conv("stem", "x", "w_stem", "s", 2, 3),
        with_ints(
            with_ints(
                with_ints(
                    node("MaxPool", "pool", &["s"], &["p"]),
                    "kernel_shape",
                    &[3, 3],
                ),
                "strides",
                &[2, 2],
            ),
            "pads",
            &[1, 1, 1, 1],
        ),
        conv("a1", "p", "w_a1", "a", 2, 1),
        conv("a2", "a", "w_a2", "a_out", 1, 1),
        conv("down", "p", "w_down", "b", 2, 0),
        node("Add", "residual", &["a_out", "b"], &["r"]),
        with_ints(
            node("ConvTranspose", "up", &["r", "w_up"], &["u"]),
            "strides",
            &[2, 2],
        ),
        node("Add", "skip", &["u", "p"], &["y"]),
    ];
    let m = load(Graph {
        nodes,
        inputs: vec![
            float("x", &["N", "3", "h", "w"]),
            float("w_stem", &["64", "3", "7", "7"]),
            float("w_a1", &["128", "64", "3", "3"]),
            float("w_a2", &["128", "128", "3", "3"]),
            float("w_down", &["128", "64", "1", "1"]),
            float("w_up", &["128", "64", "2", "2"]),
        ],
        outputs: vec![float_any("r"), float_any("y")],
        value_info: vec![],
        initializers: vec![],
    });
    assert_eq!(shape_of(&m, "s"), "[N, 64, ceil(h/2), ceil(w/2)]");
    assert_eq!(shape_of(&m, "p"), "[N, 64, ceil(h/4), ceil(w/4)]");
    assert_eq!(shape_of(&m, "a_out"), "[N, 128, ceil(h/8), ceil(w/8)]");
    assert_eq!(shape_of(&m, "b"), "[N, 128, ceil(h/8), ceil(w/8)]");
    assert_eq!(shape_of(&m, "r"), "[N, 128, ceil(h/8), ceil(w/8)]");
    assert_eq!(shape_of(&m, "u"), "[N, 64, ceil(h/8)*2, ceil(w/8)*2]");
    let w1 = with_code(&m, Code::PossibleBroadcastError);
    let at: Vec<(Option<&str>, Option<i64>)> =
        w1.iter().map(|d| (d.node.as_deref(), d.axis)).collect();
    assert_eq!(
        at,
        [(Some("skip"), Some(-2)), (Some("skip"), Some(-1))],
        "{w1:#?}"
    );
    assert!(with_code(&m, Code::BroadcastError).is_empty());
}

/// paddle2onnx declares an image `[-1, 3, ?, ?]`: `?` means "any size", not a name shared by the
/// height and the width. Each such axis of a graph input gets a symbol of its own (`x[2]`, `x[3]`), so
/// adding the image to its transpose is a W1 (it needs a square image), and a declared `?` elsewhere is
/// unknown rather than a symbol equal to the input's.
#[test]
fn a_question_mark_dim_is_a_symbol_of_its_own_per_input_axis() {
    let mut t = node("Transpose", "transpose", &["x"], &["xt"]);
    t = with_ints(t, "perm", &[0, 1, 3, 2]);
    let m = load(Graph {
        nodes: vec![t, node("Add", "add_square", &["x", "xt"], &["y"])],
        inputs: vec![float("x", &["?", "3", "?", "?"])],
        outputs: vec![float("y", &["?", "3", "?", "?"])],
        value_info: vec![],
        initializers: vec![],
    });
    assert_eq!(shape_of(&m, "x"), "[x[0], 3, x[2], x[3]]");
    assert_eq!(shape_of(&m, "xt"), "[x[0], 3, x[3], x[2]]");
    let w1 = with_code(&m, Code::PossibleBroadcastError);
    assert_eq!(w1.len(), 2, "{w1:#?}");
    assert!(
        w1[0].message.contains("needs x[2] = x[3] or one of them 1"),
        "{}",
        w1[0].message
    );
    assert!(with_code(&m, Code::BroadcastError).is_empty());
}

/// A hostile chain: a clamp (Slice to at most `c` rows) and a stride-2 pool per layer nest one floor and
/// one min per layer. Expressions stop at the algebra's depth limit and the sizes after it are unknown,
/// so 2,000 layers load on a test thread's 2 MiB stack without overflowing it.
#[test]
fn clamps_and_strides_nested_without_end_stop_at_the_depth_limit() {
    let mut nodes = Vec::new();
    let mut inits = vec![ints("zero", &[0], false), ints("axis", &[2], false)];
    let mut x = "x".to_owned();
    for i in 0..2000 {
        let end = format!("end{i}");
        inits.push(ints(&end, &[100_000 - i], false));
        let s = format!("s{i}");
        nodes.push(node("Slice", &s, &[&x, "zero", &end, "axis"], &[&s]));
        let p = format!("p{i}");
        let mut pool = node("MaxPool", &p, &[&s], &[&p]);
        pool = with_ints(pool, "kernel_shape", &[1]);
        pool = with_ints(pool, "strides", &[2]);
        nodes.push(pool);
        x = p;
    }
    let m = load(Graph {
        nodes,
        inputs: vec![float("x", &["1", "1", "h"])],
        outputs: vec![float_any(&x)],
        value_info: vec![],
        initializers: inits,
    });
    assert_clean(&m);
    assert_eq!(shape_of(&m, "s0"), "[1, 1, min(h, 100000)]");
    assert_eq!(shape_of(&m, &x), "[1, 1, ?]");
}

/// A float value whose dims are `dims`, `?` standing for a dim with no value (unknown, not a symbol).
fn float_unknown(name: &str, dims: &[&str]) -> ValueInfoProto {
    let mut v = float(name, dims);
    if let Some(type_proto::Value::TensorType(t)) = v.r#type.as_mut().and_then(|t| t.value.as_mut())
        && let Some(s) = t.shape.as_mut()
    {
        for (d, text) in s.dim.iter_mut().zip(dims) {
            if *text == "?" {
                d.value = None;
            }
        }
    }
    v
}

/// A Swin window's heads: `x [?, 16, 16]` reshaped to `[Shape(x)[0], Shape(x)[1], -1, 8]`. The
/// unknown batch is a factor of the count and of the target alike, so it cancels and the -1 is 2
/// (it was unknown); a target entry that is the dim of another tensor does not cancel, and the -1
/// stays unknown there.
#[test]
fn an_unknown_dim_of_the_input_cancels_against_itself_in_a_reshape_target() {
    let gather = |n: &str, s: &str, i: &str, out: &str| {
        with_int(node("Gather", n, &[s, i], &[out]), "axis", 0)
    };
    let target = |prefix: &str, shape_of: &str| {
        let p = |s: &str| format!("{prefix}_{s}");
        vec![
            node("Shape", &p("shape"), &[shape_of], &[&p("s")]),
            gather(&p("g0"), &p("s"), "zero", &p("d0")),
            gather(&p("g1"), &p("s"), "one", &p("d1")),
            node("Unsqueeze", &p("u0"), &[&p("d0"), "axes0"], &[&p("d0v")]),
            node("Unsqueeze", &p("u1"), &[&p("d1"), "axes0"], &[&p("d1v")]),
            with_int(
                node(
                    "Concat",
                    &p("cat"),
                    &[&p("d0v"), &p("d1v"), "minus1", "eight"],
                    &[&p("target")],
                ),
                "axis",
                0,
            ),
        ]
    };
    let mut nodes = target("own", "x");
    nodes.extend(target("other", "z"));
    nodes.push(node("Reshape", "heads", &["x", "own_target"], &["h"]));
    nodes.push(node("Reshape", "heads_z", &["x", "other_target"], &["hz"]));
    let m = load(Graph {
        nodes,
        inputs: vec![
            float_unknown("x", &["?", "16", "16"]),
            float_unknown("z", &["?", "16", "16"]),
        ],
        outputs: vec![float_any("h"), float_any("hz")],
        value_info: vec![],
        initializers: vec![
            ints("zero", &[0], true),
            ints("one", &[1], true),
            ints("axes0", &[0], false),
            ints("minus1", &[-1], false),
            ints("eight", &[8], false),
        ],
    });
    assert_clean(&m);
    assert_eq!(shape_of(&m, "x"), "[?, 16, 16]");
    assert_eq!(shape_of(&m, "h"), "[?, 16, 2, 8]");
    assert_eq!(shape_of(&m, "hz"), "[?, 16, ?, 8]");
}

/// A literal in a Concat'ed shape is kept beside parts whose values are not known: `[?, ?, 4]`.
#[test]
fn a_literal_concatenated_to_unknown_sizes_is_kept() {
    let m = load(Graph {
        nodes: vec![
            with_int(
                node("Concat", "cat", &["sizes", "four"], &["target"]),
                "axis",
                0,
            ),
            node("Reshape", "to_target", &["x", "target"], &["y"]),
        ],
        inputs: vec![
            float("x", &["N", "8"]),
            typed("sizes", DataType::Int64, &["2"]),
        ],
        outputs: vec![float_any("y")],
        value_info: vec![],
        initializers: vec![ints("four", &[4], false)],
    });
    assert_clean(&m);
    assert_eq!(shape_of(&m, "target"), "[3]");
    assert_eq!(shape_of(&m, "y"), "[?, ?, 4]");
}

/// A condition an earlier node needs holds wherever a later node runs: a Concat of `x` [h, 2] and
/// `z` [w, 3] on axis 1 needs `h = w` (W2 there), so the Add of `x` and `y` [w, 2] after it, which
/// fails only where `h` and `w` differ, is no finding of its own. Without the Concat, it is a W1.
/// A later condition that fails at values the Concat lets through stays, with such a value.
#[test]
fn a_condition_an_earlier_node_needs_is_assumed_after_it() {
    let model = |with_concat: bool, third: &str| {
        let mut nodes = Vec::new();
        if with_concat {
            nodes.push(with_int(
                node("Concat", "concat", &["x", "z"], &["c"]),
                "axis",
                1,
            ));
        }
        nodes.push(node("Add", "add", &["x", "y"], &["s"]));
        nodes.push(node("Mul", "mul", &["s", "t"], &["p"]));
        load(Graph {
            nodes,
            inputs: vec![
                float("x", &["h", "2"]),
                float("y", &["w", "2"]),
                float("z", &["w", "3"]),
                float("t", &[third, "2"]),
            ],
            outputs: vec![float_any("p")],
            value_info: vec![],
            initializers: vec![],
        })
    };
    let at = |m: &Loaded, code: Code| -> Vec<String> {
        with_code(m, code)
            .iter()
            .map(|d| d.node.clone().unwrap_or_default())
            .collect()
    };
    let alone = model(false, "h");
    assert_eq!(at(&alone, Code::PossibleBroadcastError), ["add"]);
    let after = model(true, "h");
    assert_eq!(at(&after, Code::PossibleShapeContract), ["concat"]);
    assert!(with_code(&after, Code::PossibleBroadcastError).is_empty());
    // `t` of its own size `u` is a condition the Concat says nothing of.
    let other = model(true, "u");
    assert_eq!(at(&other, Code::PossibleBroadcastError), ["mul"]);
}

/// A declared size in a symbol no graph input has (the inputs fixed to numbers, an exporter's
/// `unk__3`) is no size a user feeds: read as unknown, it brings no condition back after a broken
/// node. The Concat of [2, 3] and [4, 5] on axis 0 is an E2; its output, declared [height, 3] in
/// value_info, is unknown after it, so the Add of it and [7, 3] is no W1 on `height`.
#[test]
fn a_declared_symbol_no_input_has_is_unknown() {
    let m = load(Graph {
        nodes: vec![
            with_int(node("Concat", "concat", &["x", "z"], &["c"]), "axis", 0),
            node("Add", "add", &["c", "y"], &["s"]),
        ],
        inputs: vec![
            float("x", &["2", "3"]),
            float("z", &["4", "5"]),
            float("y", &["7", "3"]),
        ],
        outputs: vec![float_any("s")],
        value_info: vec![float("c", &["height", "3"])],
        initializers: vec![],
    });
    let codes: Vec<Code> = m.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::ShapeContract], "{:#?}", m.diagnostics);
    assert_eq!(shape_of(&m, "c"), "[?, 3]");
}
