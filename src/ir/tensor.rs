//! What a tensor's element type and dims say of its size: read by the structural checks, shape
//! inference and the renderers alike, so kept with the data they describe rather than in one of them.

use crate::proto::tensor_proto::DataType;

/// Bits one element of `data_type` takes in `raw_data`; `None` for undefined, unknown and string types.
pub fn elem_bits(data_type: i32) -> Option<u64> {
    use DataType as D;
    Some(match DataType::try_from(data_type).ok()? {
        D::Undefined | D::String => return None,
        D::Bool | D::Int8 | D::Uint8 => 8,
        D::Float8e4m3fn | D::Float8e4m3fnuz | D::Float8e5m2 | D::Float8e5m2fnuz | D::Float8e8m0 => {
            8
        }
        D::Int16 | D::Uint16 | D::Float16 | D::Bfloat16 => 16,
        D::Int32 | D::Uint32 | D::Float => 32,
        D::Int64 | D::Uint64 | D::Double | D::Complex64 => 64,
        D::Complex128 => 128,
        D::Int4 | D::Uint4 | D::Float4e2m1 => 4,
        D::Int2 | D::Uint2 => 2,
        D::Float6e2m3 | D::Float6e3m2 => 6,
    })
}

/// The name onnx uses for an element type (`FLOAT`, `INT64`...), or the number when unknown.
pub fn elem_type_name(data_type: i32) -> String {
    elem_type_str(data_type).into_owned()
}

/// [`elem_type_name`], borrowed for the known types: a listing of a million values makes no string
/// for each.
pub fn elem_type_str(data_type: i32) -> std::borrow::Cow<'static, str> {
    match DataType::try_from(data_type) {
        Ok(t) => std::borrow::Cow::Borrowed(t.as_str_name()),
        Err(_) => std::borrow::Cow::Owned(format!("<unknown type {data_type}>")),
    }
}

/// Why a tensor's dims give no element count.
#[derive(Debug, thiserror::Error)]
pub enum DimsError {
    #[error("dimension {index} is negative ({dim})")]
    Negative { index: usize, dim: i64 },
    #[error("the product of dims {0:?} overflows a 64-bit integer")]
    Overflow(Vec<i64>),
}

/// Number of elements, or why the dims are bad.
pub fn element_count(dims: &[i64]) -> Result<u64, DimsError> {
    if let Some((index, &dim)) = dims.iter().enumerate().find(|(_, d)| **d < 0) {
        return Err(DimsError::Negative { index, dim });
    }
    dims.iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .map(|n| n as u64)
        .ok_or_else(|| DimsError::Overflow(dims.to_vec()))
}
