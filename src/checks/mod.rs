//! The structural checks run at load time, each module one family of rules. They read the IR and
//! return diagnostics; none of them reads tensor data.

pub(crate) mod external;
mod functions;
mod model;
mod nodes;
mod tensors;

use crate::diagnostics::Diagnostic;
use crate::ir::Model;

/// Newest IR version this build knows (`onnx-ml.proto` of the release named in `proto/README.md`).
pub const LATEST_IR_VERSION: i64 = 14;
/// Newest opset version of the default domain this build knows.
pub const LATEST_ONNX_OPSET: i64 = 28;
/// Newest opset version of `ai.onnx.ml` this build knows.
pub const LATEST_ML_OPSET: i64 = 5;

/// Runs every load-time check on `model`.
pub fn run(model: &Model) -> Vec<Diagnostic> {
    let mut out = model::check(model);
    out.extend(nodes::check(model));
    out.extend(tensors::check(model));
    out.extend(external::check(model));
    out.extend(functions::check(model));
    out
}

use crate::ir::{Graph, TensorAt};
use crate::proto::TensorProto;

/// A callback on a tensor, its description, and the (name, op_type) of the node that holds it.
pub type TensorVisitor<'a, 'f> = dyn FnMut(&'a TensorProto, &str, Option<(&str, &str)>) + 'f;

/// Calls `f` on every tensor stored in graph `g` (not in its subgraphs): initializers, the values and
/// indices of sparse initializers, and attribute tensors, with a description and the node it is on.
pub fn visit_tensors<'a>(g: &'a Graph, f: &mut TensorVisitor<'a, '_>) {
    g.each_tensor(&mut |t, at| match at {
        TensorAt::Initializer => f(t, &format!("initializer '{}'", t.name()), None),
        TensorAt::Sparse { part, name } => {
            f(t, &format!("{part} of sparse initializer '{name}'"), None)
        }
        TensorAt::Attribute { op, attribute } => {
            let label = op.label();
            f(
                t,
                &format!("tensor of attribute '{attribute}' of node '{label}'"),
                Some((&label, op.op_type())),
            )
        }
    });
}
