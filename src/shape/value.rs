//! What shape inference knows about one value: its kind, element type, shape, and for small tensors the
//! values themselves ([`Data`]): integers (shapes, axes, sizes), which may be symbolic (`Shape` of
//! `[batch, 8]` is `[batch, 8]`), or floating-point numbers (Resize scales, roi, shape arithmetic done
//! in float by exporters). Converting from the model's declared types and initializers lives here too.

use super::dim::{Dim, Shape, SymExpr};
use crate::proto::tensor_proto::{DataLocation, DataType};
use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
use crate::proto::{TensorProto, TensorShapeProto, TypeProto, type_proto};

/// Largest integer tensor whose values inference reads and carries (data propagation). Bigger tensors
/// are weights, not shapes; reading them would page weights in.
pub const MAX_DATA_ELEMENTS: u64 = 1024;

/// Largest floating-point tensor whose values inference reads and carries. Float values that decide
/// sizes are scales and roi (one or two per axis) and scalars of shape arithmetic; a longer float
/// vector is a bias or a norm's weight, which nothing downstream needs, so it is not read or copied.
pub const MAX_FLOAT_ELEMENTS: u64 = 64;

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
    /// The values of a small tensor, flattened in row-major order, when known. Read from initializers
    /// and constants of rank 0 or 1; a few ops (Reshape, Transpose, Slice) also carry the values of a
    /// small tensor of higher rank, which torch's pad computations go through.
    pub data: Option<Data>,
}

/// The known values of a tensor: one enum rather than two fields, so that carrying floats costs
/// nothing to the values that have none (`ValueInfo` stays 64 bytes).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// Integer (and boolean) values, in the bits of `Dim::Known` (see [`as_i64`]), or symbolic.
    Ints(Vec<Dim>),
    /// Floating-point values, each exactly the value of the tensor's element type (FLOAT, DOUBLE,
    /// FLOAT16, BFLOAT16 values are all exact in an f64); arithmetic rounds to that type.
    Floats(Box<[f64]>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::Ints(v) => v.len(),
            Data::Floats(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values at `indices` (each in range, else `None`), in the same kind.
    pub fn pick(&self, indices: impl IntoIterator<Item = usize>) -> Option<Data> {
        Some(match self {
            Data::Ints(v) => Data::Ints(
                indices
                    .into_iter()
                    .map(|i| v.get(i).cloned())
                    .collect::<Option<_>>()?,
            ),
            Data::Floats(v) => Data::Floats(
                indices
                    .into_iter()
                    .map(|i| v.get(i).copied())
                    .collect::<Option<_>>()?,
            ),
        })
    }

    /// Several data of one kind, one after another; `None` when the kinds differ.
    pub fn concat<'a>(parts: impl IntoIterator<Item = &'a Data>) -> Option<Data> {
        let mut parts = parts.into_iter();
        let mut out = parts.next()?.clone();
        for p in parts {
            match (&mut out, p) {
                (Data::Ints(a), Data::Ints(b)) => a.extend(b.iter().cloned()),
                (Data::Floats(a), Data::Floats(b)) => {
                    let mut v = a.to_vec();
                    v.extend_from_slice(b);
                    *a = v.into_boxed_slice();
                }
                _ => return None,
            }
        }
        Some(out)
    }
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

    /// The same kind and element type, with nothing known of the shape or values.
    pub fn shapeless(self) -> Self {
        ValueInfo {
            shape: None,
            data: None,
            ..self
        }
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
            data: Some(Data::Ints(values)),
        }
    }

    /// With integer values `data`.
    pub fn with_data(mut self, data: Option<Vec<Dim>>) -> Self {
        self.data = data.map(Data::Ints);
        self
    }

    /// With values `data` of either kind.
    pub fn with_values(mut self, data: Option<Data>) -> Self {
        self.data = data;
        self
    }

    /// The integer values, when known (of any rank).
    pub fn ints(&self) -> Option<&[Dim]> {
        match &self.data {
            Some(Data::Ints(v)) => Some(v),
            _ => None,
        }
    }

    /// The integer values as an owned vector (tests compare them).
    pub fn int_vec(&self) -> Option<Vec<Dim>> {
        self.ints().map(<[Dim]>::to_vec)
    }

    /// The floating-point values, when known (of any rank).
    pub fn floats(&self) -> Option<&[f64]> {
        match &self.data {
            Some(Data::Floats(v)) => Some(v),
            _ => None,
        }
    }

    pub fn rank(&self) -> Option<usize> {
        self.shape.as_ref().map(Vec::len)
    }

    /// The integer data (of any rank, flattened) as plain integers, if every value is known. Sizes
    /// stay non-negative `Dim::Known`; other integers (axes, -1 in Reshape) are carried in
    /// `Dim::Known` by two's complement, see [`as_i64`].
    pub fn data_i64(&self) -> Option<Vec<i64>> {
        self.ints()?.iter().map(as_i64).collect()
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

/// The `dim_param` exporters (paddle2onnx) write for "any size": not a name shared by every dim that
/// carries it. A `[-1, 3, ?, ?]` image has a height and a width that need not be equal, so `?` is no
/// symbol: a graph input's `?` is a symbol of its own per axis ([`anonymous_symbol`]), any other
/// declared `?` is unknown.
pub const ANONYMOUS: &str = "?";

/// The symbol standing for axis `axis` of graph input `input` declared `?`: `x[3]`.
pub fn anonymous_symbol(input: &str, axis: usize) -> Dim {
    Dim::sym(format!("{input}[{axis}]"))
}

/// A dimension of a declared shape: a size, a symbol, or unknown (no value, or a negative size, which
/// the structural check reports). A name that is an expression over symbols (the dynamo exporter's
/// `2*h2`, `s0 + 1`, `floor(s0/2)`) is that expression, its symbols the atoms
/// ([`super::dim_parse::expression_name`]); any other name is a symbol of its own.
pub fn dim_from_proto(d: &crate::proto::tensor_shape_proto::Dimension) -> Dim {
    match &d.value {
        Some(DimValue::DimValue(v)) if *v >= 0 => Dim::Known(*v as u64),
        Some(DimValue::DimParam(p)) if !p.is_empty() && p != ANONYMOUS => Dim::Sym(
            super::dim_parse::expression_name(p).unwrap_or_else(|| SymExpr::var(p.as_str())),
        ),
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
        v.data = match int_values(t) {
            Some(xs) => Some(Data::Ints(xs.into_iter().map(from_i64).collect())),
            None => float_values(t).map(|xs| Data::Floats(xs.into_boxed_slice())),
        };
    }
    v
}

/// Whether `elem` is a floating-point type whose values data propagation carries.
pub fn is_float_elem(elem: Option<i32>) -> bool {
    matches!(
        elem.and_then(|e| DataType::try_from(e).ok()),
        Some(DataType::Float | DataType::Double | DataType::Float16 | DataType::Bfloat16)
    )
}

/// The value of IEEE half-precision bits, exactly.
pub fn f16_to_f64(bits: u16) -> f64 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((bits >> 10) & 0x1f);
    let frac = f64::from(bits & 0x3ff);
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1024.0 + frac) * 2f64.powi(e - 25),
    }
}

/// The value of bfloat16 bits (the upper half of an f32), exactly.
pub fn bf16_to_f64(bits: u16) -> f64 {
    f64::from(f32::from_bits(u32::from(bits) << 16))
}

/// The values of a small inline FLOAT/DOUBLE/FLOAT16/BFLOAT16 tensor (at most
/// [`MAX_FLOAT_ELEMENTS`]), if it is one and its data is consistent. FLOAT16 and BFLOAT16 are stored
/// as 16-bit patterns: two bytes each in `raw_data`, one per `int32_data` entry otherwise.
pub fn float_values(t: &TensorProto) -> Option<Vec<f64>> {
    if t.data_location == Some(DataLocation::External as i32) {
        return None;
    }
    let n = crate::ir::tensor::element_count(&t.dims).ok()?;
    if n > MAX_FLOAT_ELEMENTS {
        return None;
    }
    let n = n as usize;
    let dt = DataType::try_from(t.data_type()).ok()?;
    let half = |f: fn(u16) -> f64| -> Option<Vec<f64>> {
        match &t.raw_data {
            Some(raw) if raw.len() == n * 2 => Some(
                raw.chunks_exact(2)
                    .map(|c| f(u16::from_le_bytes([c[0], c[1]])))
                    .collect(),
            ),
            Some(_) => None,
            None => t
                .int32_data
                .iter()
                .map(|&x| u16::try_from(x).ok().map(f))
                .collect(),
        }
    };
    let values: Vec<f64> = match (dt, &t.raw_data) {
        (DataType::Float, Some(raw)) if raw.len() == n * 4 => raw
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect(),
        (DataType::Double, Some(raw)) if raw.len() == n * 8 => raw
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        (DataType::Float, None) => t.float_data.iter().map(|&x| f64::from(x)).collect(),
        (DataType::Double, None) => t.double_data.clone(),
        (DataType::Float16, _) => half(f16_to_f64)?,
        (DataType::Bfloat16, _) => half(bf16_to_f64)?,
        _ => return None,
    };
    (values.len() == n).then_some(values)
}

/// The values of a small inline INT64/INT32 tensor, if it is one and its data is consistent.
pub fn int_values(t: &TensorProto) -> Option<Vec<i64>> {
    if t.data_location == Some(DataLocation::External as i32) {
        return None;
    }
    let n = crate::ir::tensor::element_count(&t.dims).ok()?;
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

/// `v` (the exact result of an operation on values of element type `elem`) rounded to that type as a
/// runtime computing in it would: FLOAT rounds to the nearest f32 (an f64 result of one +, -, *, / of
/// f32 operands rounds to the same f32 as the f32 operation: f64 has more than twice the bits),
/// DOUBLE is the f64 operation itself. FLOAT16 and BFLOAT16 values are kept only when exact: runtimes
/// compute them in f32 and round in ways not worth copying for values that decide no size.
pub fn round_to_elem(elem: Option<i32>, v: f64) -> Option<f64> {
    match DataType::try_from(elem?).ok()? {
        DataType::Float => Some(f64::from(v as f32)),
        DataType::Double => Some(v),
        DataType::Float16 => fits_f16(v).then_some(v),
        DataType::Bfloat16 => {
            let f = v as f32;
            (f64::from(f) == v && f.to_bits() & 0xffff == 0).then_some(v)
        }
        _ => None,
    }
}

/// Whether `v` is exactly an IEEE half-precision value (infinities and NaN included).
fn fits_f16(v: f64) -> bool {
    if v == 0.0 || !v.is_finite() {
        return true;
    }
    if v.abs() > 65504.0 {
        return false;
    }
    // The spacing of f16 values around v: 2^(e - 10) for a binary exponent e >= -14 (normal), 2^-24
    // below (subnormal). v is one of them when it is a whole multiple of that spacing.
    let e = ((v.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let quantum = 2f64.powi(e.max(-14) - 10);
    (v / quantum).fract() == 0.0
}

/// True when an initializer's type does not contradict a declaration (same rank, no differing size).
pub(super) fn compatible(init: &ValueInfo, declared: &ValueInfo) -> bool {
    match (&init.shape, &declared.shape) {
        (Some(a), Some(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| match (x, y) {
                    (Dim::Known(p), Dim::Known(q)) => p == q,
                    _ => true,
                })
        }
        _ => true,
    }
}

/// Of two infos of one value, the one with the more known shape (the first on a tie).
pub(super) fn prefer_known(a: Option<ValueInfo>, b: Option<ValueInfo>) -> Option<ValueInfo> {
    let score = |v: &ValueInfo| -> usize {
        match &v.shape {
            None => 0,
            Some(s) => 1 + s.iter().filter(|d| !matches!(d, Dim::Unknown)).count(),
        }
    };
    match (a, b) {
        (Some(x), Some(y)) => Some(if score(&y) > score(&x) { y } else { x }),
        (x, y) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(dt: DataType, dims: &[i64]) -> TensorProto {
        TensorProto {
            dims: dims.to_vec(),
            data_type: Some(dt as i32),
            ..Default::default()
        }
    }

    #[test]
    fn float_initializers_are_read_exactly_by_type() {
        let mut t = tensor(DataType::Float, &[2]);
        t.raw_data = Some([0.1f32.to_le_bytes(), 2.5f32.to_le_bytes()].concat().into());
        assert_eq!(float_values(&t), Some(vec![f64::from(0.1f32), 2.5]));
        let mut t = tensor(DataType::Double, &[1]);
        t.double_data = vec![0.1];
        assert_eq!(float_values(&t), Some(vec![0.1]));
        // FLOAT16 1.5 is 0x3e00, -2.0 is 0xc000; the smallest subnormal 0x0001 is 2^-24.
        let mut t = tensor(DataType::Float16, &[3]);
        t.int32_data = vec![0x3e00, 0xc000, 0x0001];
        assert_eq!(float_values(&t), Some(vec![1.5, -2.0, 2f64.powi(-24)]));
        t.raw_data = Some(vec![0x00, 0x3e].into());
        assert_eq!(float_values(&t), None, "3 values, 1 stored");
        let mut t = tensor(DataType::Bfloat16, &[1]);
        t.raw_data = Some(vec![0xc0, 0x3f].into());
        assert_eq!(float_values(&t), Some(vec![1.5]));
        // Too many values to be a scale: a bias, not read.
        let mut t = tensor(DataType::Float, &[MAX_FLOAT_ELEMENTS as i64 + 1]);
        t.float_data = vec![0.0; MAX_FLOAT_ELEMENTS as usize + 1];
        assert_eq!(float_values(&t), None);
        assert_eq!(from_tensor(&t).data, None);
        let mut t = tensor(DataType::Float, &[2]);
        t.float_data = vec![1.0];
        assert_eq!(float_values(&t), None, "inconsistent");
        assert_eq!(f16_to_f64(0x7c00), f64::INFINITY);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert_eq!(f16_to_f64(0x7bff), 65504.0);
    }

    #[test]
    fn rounding_to_the_element_type() {
        let f32_ = Some(DataType::Float as i32);
        // 0.1 + 0.2 in f32 is not the f64 sum rounded once more: it is the f32 sum.
        let (a, b) = (f64::from(0.1f32), f64::from(0.2f32));
        assert_eq!(round_to_elem(f32_, a + b), Some(f64::from(0.1f32 + 0.2f32)));
        assert_eq!(
            round_to_elem(f32_, 1.0 / 3.0),
            Some(f64::from(1.0f32 / 3.0))
        );
        let f16 = Some(DataType::Float16 as i32);
        assert_eq!(round_to_elem(f16, 1.5), Some(1.5));
        assert_eq!(round_to_elem(f16, 65504.0), Some(65504.0));
        assert_eq!(round_to_elem(f16, 65505.0), None);
        assert_eq!(round_to_elem(f16, 0.1), None, "not exact: not carried");
        assert_eq!(round_to_elem(f16, 2f64.powi(-24)), Some(2f64.powi(-24)));
        assert_eq!(round_to_elem(f16, 2f64.powi(-25)), None);
        let bf16 = Some(DataType::Bfloat16 as i32);
        assert_eq!(round_to_elem(bf16, 1.5), Some(1.5));
        assert_eq!(round_to_elem(bf16, 1.0 + 2f64.powi(-10)), None);
        assert_eq!(round_to_elem(Some(DataType::Int64 as i32), 1.0), None);
        assert_eq!(round_to_elem(None, 1.0), None);
    }

    #[test]
    fn data_of_one_kind_concatenates_and_picks() {
        let f = Data::Floats(Box::new([1.0, 2.0]));
        let i = Data::Ints(vec![Dim::Known(3)]);
        assert_eq!(Data::concat([&f, &f]).map(|d| d.len()), Some(4));
        assert_eq!(Data::concat([&f, &i]), None, "kinds differ");
        assert_eq!(f.pick([1, 0]), Some(Data::Floats(Box::new([2.0, 1.0]))));
        assert_eq!(f.pick([2]), None, "out of range");
        assert_eq!(std::mem::size_of::<ValueInfo>(), 64, "floats cost nothing");
    }
}
