//! The load error for bytes that do not decode as a `ModelProto`: when they end inside a top-level
//! field (a copy or download cut short), the error says so, with the length and the field, instead
//! of prost's "buffer underflow"; otherwise prost's error stands.
//!
//! Only the top-level records are walked (a tag, a varint or a length each, no allocation), and only
//! once decoding has failed.

use anyhow::anyhow;

/// The largest message protobuf allows: a length announcing more is corruption, not a cut.
const MAX_MESSAGE: u64 = 2 << 30;

/// The error for `bytes`, which prost refused as a `ModelProto` with `err`.
pub fn not_a_model(bytes: &[u8], err: prost::DecodeError) -> anyhow::Error {
    match cut(bytes) {
        Some(at) => anyhow!(
            "not an ONNX model: the file is truncated: {} bytes, ending inside {at}",
            bytes.len()
        ),
        None => anyhow::Error::new(err)
            .context("not an ONNX model: the protobuf does not decode as ModelProto"),
    }
}

/// `ModelProto`'s fields by number (proto/onnx-ml.proto): name and wire type (0 varint, 2 length).
fn field(number: u64) -> Option<(&'static str, u64)> {
    Some(match number {
        1 => ("ir_version", 0),
        2 => ("producer_name", 2),
        3 => ("producer_version", 2),
        4 => ("domain", 2),
        5 => ("model_version", 0),
        6 => ("doc_string", 2),
        7 => ("graph", 2),
        8 => ("opset_import", 2),
        14 => ("metadata_props", 2),
        20 => ("training_info", 2),
        25 => ("functions", 2),
        26 => ("configuration", 2),
        _ => return None,
    })
}

/// A varint at `at`: `Ok((value, next))`, `Err(None)` when the bytes end inside it, `Err(Some(()))`
/// when it is malformed (more than ten bytes).
fn varint(bytes: &[u8], at: usize) -> Result<(u64, usize), Option<()>> {
    let mut value = 0u64;
    for k in 0..10 {
        let Some(&b) = bytes.get(at + k) else {
            return Err(None);
        };
        value |= u64::from(b & 0x7f) << (7 * k);
        if b & 0x80 == 0 {
            return Ok((value, at + k + 1));
        }
    }
    Err(Some(()))
}

/// Where `bytes` end inside a top-level record, in words; `None` when every top-level record is
/// whole, or when a record before the cut is malformed or no field of `ModelProto` with its wire
/// type (then the bytes are damaged or no model at all, and "truncated" would mislead).
fn cut(bytes: &[u8]) -> Option<String> {
    let mut at = 0;
    while at < bytes.len() {
        let (tag, body) = match varint(bytes, at) {
            Ok(v) => v,
            Err(None) => {
                return Some(format!(
                    "the tag of a ModelProto field (the varint at byte {at})"
                ));
            }
            Err(Some(())) => return None,
        };
        let (number, wire) = (tag >> 3, tag & 7);
        let (name, expected) = field(number).filter(|&(_, w)| w == wire)?;
        let field = format!("ModelProto.{name} (field {number})");
        let end = if expected == 0 {
            match varint(bytes, body) {
                Ok((_, next)) => next,
                Err(None) => return Some(format!("the varint of {field} at byte {body}")),
                Err(Some(())) => return None,
            }
        } else {
            match varint(bytes, body) {
                Ok((len, data)) if len <= MAX_MESSAGE => {
                    if data as u64 + len > bytes.len() as u64 {
                        return Some(format!("{field}, which needs {len} bytes from byte {data}"));
                    }
                    data + len as usize
                }
                Ok(_) | Err(Some(())) => return None,
                Err(None) => return Some(format!("the length of {field} at byte {body}")),
            }
        };
        at = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(bytes: &[u8]) -> String {
        use prost::Message;
        let err = crate::proto::ModelProto::decode(bytes).expect_err("does not decode");
        format!("{:#}", not_a_model(bytes, err))
    }

    #[test]
    fn a_cut_inside_a_length_delimited_field_names_it() {
        // ir_version 9, then graph (field 7) announcing 100 bytes of which 5 follow.
        let bytes = [0x08, 0x09, 0x3a, 100, 0x0a, 0x03, b'a', b'b', b'c'];
        assert_eq!(
            error(&bytes),
            "not an ONNX model: the file is truncated: 9 bytes, ending inside ModelProto.graph \
             (field 7), which needs 100 bytes from byte 4"
        );
    }

    #[test]
    fn a_cut_inside_a_varint_or_a_tag_names_it() {
        assert_eq!(
            error(&[0x08, 0x80]),
            "not an ONNX model: the file is truncated: 2 bytes, ending inside the varint of \
             ModelProto.ir_version (field 1) at byte 1"
        );
        assert_eq!(
            error(&[0x08, 0x09, 0x80]),
            "not an ONNX model: the file is truncated: 3 bytes, ending inside the tag of a ModelProto \
             field (the varint at byte 2)"
        );
        assert!(error(&[0x3a]).contains("the length of ModelProto.graph (field 7) at byte 1"));
    }

    #[test]
    fn damage_that_is_no_cut_keeps_the_decoders_error() {
        // graph announcing 2^63 bytes: corrupt, not cut short.
        let mut bytes = vec![
            0x3a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01,
        ];
        bytes.extend([0u8; 16]);
        let e = error(&bytes);
        assert!(e.contains("does not decode as ModelProto"), "{e}");
        assert!(!e.contains("truncated"), "{e}");
        // Wire type 7.
        let e = error(&[0x0f]);
        assert!(!e.contains("truncated"), "{e}");
    }
}
