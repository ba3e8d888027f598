//! The symbols of a graph's input sizes: what a size must be expressed in to relate to the inputs
//! (inference reads a declared size in other names as unknown, and `annotate` replaces such a name
//! by the size inference finds).

use super::dim::{Dim, SymExpr};
use super::value::{ANONYMOUS, ValueInfo, anonymous_symbol, from_type_proto};
use crate::ir::Graph;
use std::collections::HashSet;

/// Whether every symbol of `e` is one of `symbols` (the graph inputs' sizes), or a name made of them
/// (`x[2]`, a word of which is `x`).
pub(crate) fn in_symbols(e: &SymExpr, symbols: &HashSet<String>) -> bool {
    let fed = |name: &str| {
        symbols.contains(name)
            || name
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| symbols.contains(word))
    };
    e.symbols().iter().all(|s| fed(s))
}

/// The symbols of the sizes of `g`'s inputs (an axis declared `?` by its own name, `x[2]`).
pub(crate) fn input_symbols(g: &Graph) -> HashSet<String> {
    let mut symbols = HashSet::new();
    for vi in &g.header.input {
        let Some(t) = &vi.r#type else { continue };
        let mut info = from_type_proto(t);
        name_anonymous_dims(vi.name(), t, &mut info);
        for d in info.shape.iter().flatten() {
            if let Dim::Sym(e) = d {
                symbols.extend(e.symbols().into_iter().map(str::to_owned));
            }
        }
    }
    symbols
}

/// Gives each axis of a graph input declared `?` a symbol of its own (`x[2]`, `x[3]`), so sizes
/// computed from it stay exact without assuming two such axes equal.
pub(crate) fn name_anonymous_dims(
    name: &str,
    proto: &crate::proto::TypeProto,
    info: &mut ValueInfo,
) {
    use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
    use crate::proto::type_proto::Value as V;
    let (Some(V::TensorType(t)), Some(dims)) = (&proto.value, info.shape.as_mut()) else {
        return;
    };
    let Some(shape) = &t.shape else {
        return;
    };
    for (axis, (d, p)) in dims.iter_mut().zip(&shape.dim).enumerate() {
        if matches!(&p.value, Some(DimValue::DimParam(s)) if s == ANONYMOUS) {
            *d = anonymous_symbol(name, axis);
        }
    }
}
