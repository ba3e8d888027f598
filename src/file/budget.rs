//! What prost will allocate to decode a message, bounded before it runs.
//!
//! prost decodes with infallible allocation: a `Vec` that cannot grow aborts the process (Rust's
//! allocation-error handler), which for the Python extension means the interpreter dies with
//! SIGABRT. And the decoded form can be far larger than its bytes: an empty `TensorProto` is 2 bytes
//! in a file (tag, length 0) and over 300 in a `Vec<TensorProto>`; a 50 MB `AttributeProto` of 25
//! million empty `tensors`, `graphs` or `strings` takes gigabytes (measured: 4.3 GB of RSS for
//! `tensors`, 1.4 GB for `strings`, 0.7 GB for 50 MB of packed one-byte `ints`).
//!
//! So before a buffer is handed to prost, [`check`] walks its records with the ONNX schema (headers
//! only; payloads that are not messages are skipped) and adds up an upper bound of the heap the
//! decode takes; once the bounds since the last probe exceed [`PROBE_ABOVE`] it asks the allocator
//! for that much with `try_reserve` and gives it back at once. A refusal (an address-space limit, `RLIMIT_AS`; more than the machine
//! can ever give) becomes an [`OutOfMemory`] error, which callers can tell apart from a malformed
//! file (the Python extension raises `MemoryError` for it). The probe is a check, not a reservation:
//! memory another thread takes between the probe and the decode can still run out, but the input
//! alone no longer takes the process down where a limit is set.

use super::encoding::{LEN, records};
use crate::proto::{
    AttributeProto, DeviceConfigurationProto, FunctionProto, GraphProto, IntIntListEntryProto,
    NodeDeviceConfigurationProto, NodeProto, OperatorSetIdProto, ShardedDimProto,
    ShardingSpecProto, SimpleShardedDimProto, SparseTensorProto, StringStringEntryProto,
    TensorAnnotation, TensorProto, TrainingInfoProto, TypeProto, ValueInfoProto,
    tensor_shape_proto::Dimension,
};
use std::mem::size_of;

/// Bounds at most this large are not probed: allocations of this size are what any process may make,
/// and the walk is skipped for buffers that cannot reach it.
pub const PROBE_ABOVE: u64 = 64 << 20;

/// Heap bytes a decode can take per byte of input, at most (a two-byte record of a repeated message
/// of the largest type, times [`GROWTH`]): buffers shorter than `PROBE_ABOVE / MAX_PER_BYTE` are not
/// walked.
const MAX_PER_BYTE: u64 = 1024;

/// A repeated field's `Vec` grows by doubling: its capacity is at most twice its length, and while it
/// moves, the old and the new buffer are both held (three times the length).
const GROWTH: u64 = 3;

/// Nesting followed at most (prost refuses deeper messages).
const MAX_DEPTH: usize = 100;

/// The memory a decode would take could not be had.
#[derive(Debug)]
pub struct OutOfMemory {
    /// The bound that the allocator refused.
    pub bytes: u64,
    /// The bytes of input it was for.
    pub input: u64,
    /// What was being decoded (`"model"`, `"attribute"`).
    pub what: &'static str,
}

impl std::fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "out of memory: decoding the {} ({} bytes; with what was decoded just before it) may \
             take up to {} MiB, which cannot be allocated (repeated fields can be many times larger \
             decoded than in the file)",
            self.what,
            self.input,
            self.bytes.div_ceil(1 << 20)
        )
    }
}

impl std::error::Error for OutOfMemory {}

/// A message type of the ONNX schema, as far as its decoded size goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Msg {
    Model,
    Graph,
    Node,
    Attribute,
    Tensor,
    Sparse,
    ValueInfo,
    Type,
    /// `TypeProto.Tensor` and `TypeProto.SparseTensor`: an element type and a shape.
    TypeShaped,
    /// `TypeProto.Sequence` and `TypeProto.Optional`: a boxed `TypeProto` (field 1).
    TypeBoxed,
    TypeMap,
    Shape,
    Dim,
    Function,
    Training,
    /// `StringStringEntryProto`, `TypeProto.Opaque`, `TensorProto.Segment`...: strings and scalars.
    Flat,
    DeviceConfig,
    NodeDeviceConfig,
    ShardingSpec,
    IntIntList,
    ShardedDim,
    SimpleShardedDim,
    Annotation,
    OpsetId,
}

/// How a field is decoded.
enum Field {
    /// A message; `Some(size)`: repeated, each one `size` bytes in its `Vec`.
    Msg(Msg, Option<usize>),
    /// A string field; `true`: repeated.
    Text(bool),
    /// A bytes field (`bytes::Bytes`: a slice of the input when decoded from `Bytes`, a copy when
    /// decoded from a `&[u8]`); `true`: repeated.
    Raw(bool),
    /// A repeated number of `size` bytes decoded; `width`: its bytes in fixed encoding (0: varint).
    Numbers { size: usize, width: u64 },
    /// A scalar, or a field prost skips: nothing on the heap.
    Nothing,
}

fn rep<T>(m: Msg) -> Field {
    Field::Msg(m, Some(size_of::<T>()))
}

fn one(m: Msg) -> Field {
    Field::Msg(m, None)
}

const STR: Field = Field::Text(false);
const STRS: Field = Field::Text(true);
const I64S: Field = Field::Numbers { size: 8, width: 0 };

/// The schema (`proto/onnx-ml.proto`), for the fields that take heap.
fn field(m: Msg, f: u32) -> Field {
    use Msg::*;
    match (m, f) {
        (Model, 2 | 3 | 4 | 6) => STR,
        (Model, 7) => one(Graph),
        (Model, 8) => rep::<OperatorSetIdProto>(OpsetId),
        (Model, 14) => rep::<StringStringEntryProto>(Flat),
        (Model, 20) => rep::<TrainingInfoProto>(Training),
        (Model, 25) => rep::<FunctionProto>(Function),
        (Model, 26) => rep::<DeviceConfigurationProto>(DeviceConfig),
        (Training, 1 | 2) => one(Graph),
        (Training, 3 | 4) => rep::<StringStringEntryProto>(Flat),
        (Graph, 1) => rep::<NodeProto>(Node),
        (Graph, 2 | 10) => STR,
        (Graph, 5) => rep::<TensorProto>(Tensor),
        (Graph, 11..=13) => rep::<ValueInfoProto>(ValueInfo),
        (Graph, 14) => rep::<TensorAnnotation>(Annotation),
        (Graph, 15) => rep::<SparseTensorProto>(Sparse),
        (Graph, 16) => rep::<StringStringEntryProto>(Flat),
        (Node, 1 | 2) => STRS,
        (Node, 3 | 4 | 6 | 7 | 8) => STR,
        (Node, 5) => rep::<AttributeProto>(Attribute),
        (Node, 9) => rep::<StringStringEntryProto>(Flat),
        (Node, 10) => rep::<NodeDeviceConfigurationProto>(NodeDeviceConfig),
        (Attribute, 1 | 13 | 21) => STR,
        (Attribute, 4) => Field::Raw(false),
        (Attribute, 5) => one(Tensor),
        (Attribute, 6) => one(Graph),
        (Attribute, 7) => Field::Numbers { size: 4, width: 4 },
        (Attribute, 8) => I64S,
        (Attribute, 9) => Field::Raw(true),
        (Attribute, 10) => rep::<TensorProto>(Tensor),
        (Attribute, 11) => rep::<GraphProto>(Graph),
        (Attribute, 14) => one(Type),
        (Attribute, 15) => rep::<TypeProto>(Type),
        (Attribute, 22) => one(Sparse),
        (Attribute, 23) => rep::<SparseTensorProto>(Sparse),
        (Tensor, 1 | 7 | 11) => I64S,
        (Tensor, 3) => one(Flat),
        (Tensor, 4) => Field::Numbers { size: 4, width: 4 },
        (Tensor, 5) => Field::Numbers { size: 4, width: 0 },
        (Tensor, 6) => Field::Raw(true),
        (Tensor, 8 | 12) => STR,
        (Tensor, 9) => Field::Raw(false),
        (Tensor, 10) => Field::Numbers { size: 8, width: 8 },
        (Tensor, 13 | 16) => rep::<StringStringEntryProto>(Flat),
        (Sparse, 1 | 2) => one(Tensor),
        (Sparse, 3) => I64S,
        (ValueInfo, 1 | 3) => STR,
        (ValueInfo, 2) => one(Type),
        (ValueInfo, 4) => rep::<StringStringEntryProto>(Flat),
        (Type, 6) => STR,
        (Type, 1 | 8) => one(TypeShaped),
        (Type, 4 | 9) => one(TypeBoxed),
        (Type, 5) => one(TypeMap),
        (Type, 7) => one(Flat),
        (TypeShaped, 2) => one(Shape),
        // Boxed: one `TypeProto` on the heap each time.
        (TypeBoxed, 1) | (TypeMap, 2) => rep::<TypeProto>(Type),
        (Shape, 1) => rep::<Dimension>(Dim),
        (Dim, 2 | 3) => STR,
        (Function, 1 | 8 | 10 | 13) => STR,
        (Function, 4..=6) => STRS,
        (Function, 7) => rep::<NodeProto>(Node),
        (Function, 9) => rep::<OperatorSetIdProto>(OpsetId),
        (Function, 11) => rep::<AttributeProto>(Attribute),
        (Function, 12) => rep::<ValueInfoProto>(ValueInfo),
        (Function, 14) => rep::<StringStringEntryProto>(Flat),
        (Flat | OpsetId, _) => STR,
        (DeviceConfig, 1) => STR,
        (DeviceConfig, 3) => STRS,
        (NodeDeviceConfig, 1) => STR,
        (NodeDeviceConfig, 2) => rep::<ShardingSpecProto>(ShardingSpec),
        (ShardingSpec, 1) => STR,
        (ShardingSpec, 2) => I64S,
        (ShardingSpec, 3) => rep::<IntIntListEntryProto>(IntIntList),
        (ShardingSpec, 4) => rep::<ShardedDimProto>(ShardedDim),
        (IntIntList, 2) => I64S,
        (ShardedDim, 2) => rep::<SimpleShardedDimProto>(SimpleShardedDim),
        (SimpleShardedDim, 2) => STR,
        (Annotation, 1) => STR,
        (Annotation, 2) => rep::<StringStringEntryProto>(Flat),
        _ => Field::Nothing,
    }
}

/// Where prost decodes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    /// A `&[u8]`: bytes fields are copied.
    Slice,
    /// `bytes::Bytes`: bytes fields are slices of it (a 3 GiB `raw_data` takes nothing).
    Shared,
}

/// An upper bound of the heap bytes prost takes to decode `buf` as a message `m` (a malformed record
/// ends the walk: prost stops there too). Strings count as their length; a `Vec`'s element its size
/// times `GROWTH` (3: a doubling `Vec` holds up to twice its length, plus the copy while it grows).
pub fn bound(m: Msg, buf: &[u8], from: From) -> u64 {
    walk(m, buf, 0..buf.len(), from, 0)
}

fn walk(m: Msg, buf: &[u8], range: std::ops::Range<usize>, from: From, depth: usize) -> u64 {
    if depth > MAX_DEPTH {
        return 0;
    }
    let mut total = 0u64;
    for r in records(buf, range) {
        let Ok(r) = r else { break };
        let len = r.payload.len() as u64;
        let packed = r.wire_type == LEN;
        let cost = match field(m, r.field) {
            Field::Msg(sub, size) if packed => {
                let own = size.map_or(0, |s| s as u64 * GROWTH);
                own.saturating_add(walk(sub, buf, r.payload.clone(), from, depth + 1))
            }
            Field::Text(repeated) if packed => len + if repeated { 24 * GROWTH } else { 0 },
            Field::Raw(repeated) if packed => {
                let own = if from == From::Slice { len } else { 0 };
                own + if repeated { 32 * GROWTH } else { 0 }
            }
            // Packed: at most one number per byte (varint) or per `width` bytes.
            Field::Numbers { size, width } if packed => len / width.max(1) * size as u64 * GROWTH,
            Field::Numbers { size, .. } => size as u64 * GROWTH,
            _ => 0,
        };
        total = total.saturating_add(cost);
    }
    total
}

/// Buffers whose walk could not reach this are not walked: their bound is taken as their length
/// times [`MAX_PER_BYTE`] (a million small attributes are not walked twice).
const WALK_ABOVE: u64 = 1 << 20;

thread_local! {
    /// The bounds checked on this thread since its last probe: a main graph's nodes are decoded one
    /// by one, each far below [`PROBE_ABOVE`], and together as large as one huge attribute (3,000
    /// nodes of 16 KiB, each 8,000 empty tensors, take 8 GB).
    static PENDING: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Checks that decoding `buf` (from `from`) as `m` (`what` names it in the error) would not run out
/// of memory: once the bounds of this and the buffers checked before it on this thread (since the
/// last probe) exceed [`PROBE_ABOVE`], the allocator is asked for their sum (see the module's
/// comment). What is decoded between two probes, at most `PROBE_ABOVE`, is not probed.
pub fn check(m: Msg, buf: &[u8], from: From, what: &'static str) -> Result<(), OutOfMemory> {
    let input = buf.len() as u64;
    let most = input.saturating_mul(MAX_PER_BYTE);
    let this = if most <= WALK_ABOVE {
        most
    } else {
        bound(m, buf, from)
    };
    let bytes = PENDING.get().saturating_add(this);
    if bytes <= PROBE_ABOVE {
        PENDING.set(bytes);
        return Ok(());
    }
    PENDING.set(0);
    let fail = OutOfMemory { bytes, input, what };
    let Ok(n) = usize::try_from(bytes) else {
        return Err(fail);
    };
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(n).map_err(|_| fail)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(field: u32, payload: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        super::super::encoding::write_varint(&mut out, u64::from(field) << 3 | u64::from(LEN));
        super::super::encoding::write_varint(&mut out, payload.len() as u64);
        out.extend_from_slice(payload);
        out
    }

    #[test]
    fn empty_repeated_messages_count_their_size() {
        let attr: Vec<u8> = std::iter::repeat_n(rec(10, b""), 1000).flatten().collect();
        let want = 1000 * size_of::<TensorProto>() as u64 * GROWTH;
        assert_eq!(bound(Msg::Attribute, &attr, From::Slice), want);
    }

    #[test]
    fn packed_varints_count_eight_bytes_a_byte() {
        let attr = rec(8, &[1u8; 100]);
        assert_eq!(bound(Msg::Attribute, &attr, From::Slice), 100 * 8 * GROWTH);
    }

    #[test]
    fn nested_messages_add_up() {
        let node = rec(5, &rec(11, &rec(1, b"")));
        let want = (size_of::<AttributeProto>() + size_of::<GraphProto>() + size_of::<NodeProto>())
            as u64
            * GROWTH;
        assert_eq!(bound(Msg::Node, &node, From::Slice), want);
    }

    #[test]
    fn small_buffers_and_plain_models_pass() {
        assert!(check(Msg::Model, b"\x08\x08", From::Slice, "model").is_ok());
        // A `raw_data` costs its length copied, nothing sliced.
        let tensor = rec(9, &vec![0u8; 1 << 20]);
        assert_eq!(bound(Msg::Tensor, &tensor, From::Slice), 1 << 20);
        assert_eq!(bound(Msg::Tensor, &tensor, From::Shared), 0);
    }

    #[test]
    fn small_checks_add_up_to_a_probe() {
        PENDING.set(0);
        let attr = rec(8, &[1u8; 100]);
        for _ in 0..(PROBE_ABOVE / (attr.len() as u64 * MAX_PER_BYTE)) {
            assert!(check(Msg::Attribute, &attr, From::Slice, "attribute").is_ok());
        }
        assert!(PENDING.get() > PROBE_ABOVE / 2);
        // The next one crosses the threshold: probed (and granted), the sum starts again.
        assert!(check(Msg::Attribute, &attr, From::Slice, "attribute").is_ok());
        assert_eq!(PENDING.get(), 0);
    }

    #[test]
    fn the_error_says_how_much() {
        // (A refusal needs an address-space limit, which a test cannot set for its process alone:
        // the Python tests do, in a subprocess.) What the error says:
        let e = OutOfMemory {
            bytes: 5 << 30,
            input: 50_000_000,
            what: "attribute",
        };
        let text = e.to_string();
        assert!(
            text.contains("out of memory") && text.contains("5120 MiB"),
            "{text}"
        );
    }
}
