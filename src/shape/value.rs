//! What shape inference knows about one value: its kind, element type, shape, and for small integer
//! tensors (shapes, axes, sizes) the values themselves, which may be symbolic (`Shape` of `[batch, 8]`
//! is `[batch, 8]`). Converting from the model's declared types and initializers lives here too.

use super::dim::{Dim, Shape, SymExpr};
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::{TensorProto, TensorShapeProto, TypeProto, type_proto};

/// Largest integer tensor whose values inference reads and carries (data propagation). Bigger tensors
/// are weights, not shapes; reading them would page weights in.
pub const MAX_DATA_ELEMENTS: u64 = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Tensor,
    SparseTensor,
    /// A sequence: `elem` and `shape` describe its element tensors.
    Sequence,
    /// An optional: `elem` and `shape` describe the tensor it holds.
    Optional,
    Map,
    Opaque,
}

/// The inferred (or declared) type of a value.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueInfo {
    pub kind: Kind,
    /// `TensorProto.DataType` of the elements, when known.
    pub elem: Option<i32>,
    pub shape: Shape,
    /// The values of a small integer tensor (rank 0 or 1), flattened, when known.
    pub data: Option<Vec<Dim>>,
}

impl ValueInfo {
    pub const fn tensor(elem: Option<i32>, shape: Shape) -> Self {
        ValueInfo {
            kind: Kind::Tensor,
            elem,
            shape,
            data: None,
        }
    }

    /// A tensor of unknown element type and unknown rank.
    pub const fn unknown() -> Self {
        ValueInfo::tensor(None, None)
    }

    /// An int64 tensor holding `values`: a 1-D tensor, or a scalar when `scalar`.
    pub fn int64_data(values: Vec<Dim>, scalar: bool) -> Self {
        let shape = if scalar {
            Some(vec![])
        } else {
            Some(vec![Dim::Known(values.len() as u64)])
        };
        ValueInfo {
            kind: Kind::Tensor,
            elem: Some(DataType::Int64 as i32),
            shape,
            data: Some(values),
        }
    }

    pub fn with_data(mut self, data: Option<Vec<Dim>>) -> Self {
        self.data = data;
        self
    }

    pub fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }

    /// The data as plain integers, if every value is known. Sizes stay non-negative `Dim::Known`; other
    /// integers (axes, -1 in Reshape) are carried in `Dim::Known` by two's complement, see [`as_i64`].
    pub fn data_i64(&self) -> Option<Vec<i64>> {
        self.data.as_ref()?.iter().map(as_i64).collect()
    }
}

/// The signed integer carried in a data value (data values use `Dim::Known` with the bits of an i64).
pub fn as_i64(d: &Dim) -> Option<i64> {
    match d {
        Dim::Known(v) => Some(*v as i64),
        _ => None,
    }
}

/// A data value holding the signed integer `v`.
pub fn from_i64(v: i64) -> Dim {
    Dim::Known(v as u64)
}

/// A dimension of a declared shape: a size, a symbol, or unknown (no value, or a negative size, which
/// the structural check reports).
pub fn dim_from_proto(d: &crate::proto::tensor_shape_proto::Dimension) -> Dim {
    match &d.value {
        Some(DimValue::DimValue(v)) if *v >= 0 => Dim::Known(*v as u64),
        Some(DimValue::DimParam(p)) if !p.is_empty() => Dim::Sym(SymExpr::var(p.as_str())),
        _ => Dim::Unknown,
    }
}

pub fn shape_from_proto(s: Option<&TensorShapeProto>) -> Shape {
    s.map(|s| s.dim.iter().map(dim_from_proto).collect())
}

/// The declared type of a value, as inference sees it.
pub fn from_type_proto(t: &TypeProto) -> ValueInfo {
    use type_proto::Value as V;
    let (kind, inner) = match &t.value {
        Some(V::TensorType(t)) => {
            return ValueInfo::tensor(
                t.elem_type.filter(|&e| e != 0),
                shape_from_proto(t.shape.as_ref()),
            );
        }
        Some(V::SparseTensorType(t)) => {
            let mut v = ValueInfo::tensor(t.elem_type, shape_from_proto(t.shape.as_ref()));
            v.kind = Kind::SparseTensor;
            return v;
        }
        Some(V::SequenceType(s)) => (Kind::Sequence, s.elem_type.as_deref()),
        Some(V::OptionalType(o)) => (Kind::Optional, o.elem_type.as_deref()),
        Some(V::MapType(_)) => (Kind::Map, None),
        Some(V::OpaqueType(_)) => (Kind::Opaque, None),
        None => return ValueInfo::unknown(),
    };
    let mut v = inner
        .map(from_type_proto)
        .unwrap_or_else(ValueInfo::unknown);
    v.kind = kind;
    v.data = None;
    v
}

/// What an initializer or constant tensor tells inference: its type, shape, and for a small integer
/// tensor stored inline its values. Only such small tensors are read.
pub fn from_tensor(t: &TensorProto) -> ValueInfo {
    let shape: Shape = if t.dims.iter().any(|&d| d < 0) {
        None
    } else {
        Some(t.dims.iter().map(|&d| Dim::Known(d as u64)).collect())
    };
    let elem = Some(t.data_type()).filter(|&e| e != 0);
    let mut v = ValueInfo::tensor(elem, shape);
    if t.dims.len() <= 1 {
        v.data = int_values(t).map(|xs| xs.into_iter().map(from_i64).collect());
    }
    v
}

/// The values of a small inline INT64/INT32 tensor, if it is one and its data is consistent.
pub fn int_values(t: &TensorProto) -> Option<Vec<i64>> {
    if t.data_location == Some(DataLocation::External as i32) {
        return None;
    }
    let n = crate::checks::element_count(&t.dims).ok()?;
    if n > MAX_DATA_ELEMENTS {
        return None;
    }
    let n = n as usize;
    let dt = DataType::try_from(t.data_type()).ok()?;
    let values: Vec<i64> = match (dt, &t.raw_data) {
        (DataType::Int64, Some(raw)) if raw.len() == n * 8 => raw
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        (DataType::Int32, Some(raw)) if raw.len() == n * 4 => raw
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap_or([0; 4]))))
            .collect(),
        (DataType::Int64, None) => t.int64_data.clone(),
        (DataType::Int32, None) => t.int32_data.iter().map(|&x| i64::from(x)).collect(),
        _ => return None,
    };
    (values.len() == n).then_some(values)
}
