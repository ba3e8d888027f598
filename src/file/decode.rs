//! Decoding a model file without paging its weights in.
//!
//! Decoding straight from a memory map reads every field header, and the kernel maps whole page-cache
//! folios (up to megabytes each, on recent kernels) around each one: a 400 MB model with 170 weight
//! tensors peaked at 351 MB of RSS that way. Instead, the file is walked with buffered reads following
//! the ONNX schema (a file of at most [`WALK_MAPPING_BELOW`] bytes is walked in its mapping, where all
//! of it paged in is little memory and the reads' copies cost more); every large
//! `TensorProto.raw_data` payload is skipped (a seek) and replaced in a
//! compact copy by a 32-byte placeholder naming its offset and length. prost decodes the compact copy,
//! and each placeholder is then swapped for a zero-copy slice of the (untouched) mapping. Weight bytes
//! are never read, copied or mapped in while checking.
//!
//! The main graph's node records are set apart by the walk and decoded here, not by prost: straight
//! into a [`NodeSink`] (the IR's compact nodes, whose names go into one string per batch), on two
//! threads for large graphs. The sink is a trait of this layer ([`super::sink`]) rather than the IR's
//! type, so that this layer stays below the IR: the IR implements the sink and never names the
//! decoder, the decoder knows nothing of the IR. A record small enough that it cannot hold a skipped payload is read from the mapping where
//! it lies (a graph of a million nodes is then never copied); a larger one (a Constant holding a
//! weight) goes through the compact copy like everything else.

use super::budget::{self, OutOfMemory};
use super::encoding::{LEN, Record, write_varint};
use super::sink::{NodeFields, NodeSink};
use crate::proto::{
    AttributeProto, FunctionProto, GraphProto, ModelProto, NodeDeviceConfigurationProto, NodeProto,
    StringStringEntryProto, TensorProto,
};
use anyhow::{Context, Result, bail};
use bytes::Bytes;
use prost::Message;
use std::io::{BufRead, BufReader, Seek};

/// `raw_data` payloads larger than this are left in the file; smaller ones are copied (they include
/// the shape constants that data propagation reads).
pub const SKIP_ABOVE: u64 = 16 * 1024;
/// Sub-message nesting followed at most, like prost's own decode limit.
const MAX_DEPTH: usize = 100;

/// Which message a span of bytes is, for knowing which fields to descend into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Msg {
    Model,
    /// `ModelProto.graph`: its node records are set apart (see [`Walker::main_nodes`]).
    MainGraph,
    Graph,
    Node,
    Attribute,
    Tensor,
    Sparse,
    Function,
    Training,
}

/// The message type of field `field` of `msg`, if it is one we descend into.
fn child(msg: Msg, field: u32) -> Option<Msg> {
    use super::schema::{attribute, function, graph, model, node, sparse_tensor, training_info};
    use Msg::*;
    Some(match (msg, field) {
        (Model, model::GRAPH) => MainGraph,
        (Model, model::TRAINING_INFO) => Training,
        (Model, model::FUNCTIONS) => Function,
        (Training, training_info::INITIALIZATION | training_info::ALGORITHM) => Graph,
        (MainGraph | Graph, graph::NODE) => Node,
        (MainGraph | Graph, graph::INITIALIZER) => Tensor,
        (MainGraph | Graph, graph::SPARSE_INITIALIZER) => Sparse,
        (Node, node::ATTRIBUTE) => Attribute,
        (Attribute, attribute::T | attribute::TENSORS) => Tensor,
        (Attribute, attribute::G | attribute::GRAPHS) => Graph,
        (Attribute, attribute::SPARSE_TENSOR | attribute::SPARSE_TENSORS) => Sparse,
        (Sparse, sparse_tensor::VALUES | sparse_tensor::INDICES) => Tensor,
        (Function, function::NODE) => Node,
        (Function, function::ATTRIBUTE_PROTO) => Attribute,
        _ => return None,
    })
}

/// The bytes of the placeholder a payload left in the source is replaced by: its length prefix (one
/// byte), the nonce, the offset and the length.
const PLACEHOLDER_LEN: u64 = 1 + 16 + 8 + 8;

use super::schema::graph::NODE as GRAPH_NODE;
use super::schema::tensor::{DOUBLE_DATA, FLOAT_DATA, RAW_DATA};

struct Walker<'m, R> {
    r: R,
    /// The whole file, mapped: the main graph's node records are found there (see
    /// [`Walker::small_nodes_from`]).
    map: &'m [u8],
    pos: u64,
    file_len: u64,
    nonce: [u8; 16],
    /// `raw_data` payloads longer than this are left in the source and restored as slices of it:
    /// [`SKIP_ABOVE`] for a file (what is left is never paged in), [`PLACEHOLDER_LEN`] for bytes in
    /// memory (already resident: a slice costs nothing, so only payloads shorter than their
    /// placeholder are copied).
    raw_left_above: u64,
    /// Whether a large packed `float_data` or `double_data` is left in the source like `raw_data` (a
    /// file's mapping), and decoded from there into its vector alone: copied through the compact copy,
    /// 50 million floats peaked at 554 MB (the copy, grown by doubling, beside prost's vector); left
    /// in the file, at the vector and the pages it is read from.
    typed_left: bool,
    /// The main graph's node records, in order, left out of the compact copy: a graph of a million
    /// nodes is decoded from them on two threads, straight into the IR's form. A record of at most
    /// [`SKIP_ABOVE`] bytes (it cannot hold a payload the walker would skip) is read later from the
    /// mapped file, and not copied here at all; a larger one is copied into `big_nodes`, with its
    /// large payloads left in the file as everywhere else.
    main_nodes: Vec<NodeRecord>,
    big_nodes: Vec<u8>,
    /// The ranges in `big_nodes` of the records copied there.
    big_ranges: Vec<std::ops::Range<usize>>,
}

/// Where a main-graph node record is, in eight bytes (a graph of a million nodes has a million): the
/// offset in the file of its length prefix, or, with [`NodeRecord::BIG`] set, the index in
/// [`Walker::big_ranges`] of its copy.
#[derive(Clone, Copy, Debug)]
struct NodeRecord(u64);

impl NodeRecord {
    /// Set in a copied record's index. File offsets stay below it: a file is shorter than 2^63 bytes.
    const BIG: u64 = 1 << 63;
}

impl<R: BufRead + Seek> Walker<'_, R> {
    /// Reads a varint; returns its value and its bytes as read.
    fn varint_raw(&mut self) -> Result<(u64, [u8; 10], usize)> {
        let start = self.pos;
        let mut raw = [0u8; 10];
        let mut v = 0u64;
        for i in 0..10 {
            // Usually the whole varint is in the buffer already; byte by byte through it is cheap.
            let buf = self
                .r
                .fill_buf()
                .with_context(|| format!("cannot read at byte {}", self.pos))?;
            let Some(&b) = buf.first() else {
                bail!("truncated at byte {}", self.pos);
            };
            self.r.consume(1);
            self.pos += 1;
            raw[i] = b;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok((v, raw, i + 1));
            }
        }
        bail!("varint longer than 10 bytes at byte {start}")
    }

    fn varint(&mut self, out: &mut Vec<u8>) -> Result<u64> {
        let (v, raw, n) = self.varint_raw()?;
        out.extend_from_slice(&raw[..n]);
        Ok(v)
    }

    fn copy(&mut self, n: u64, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        let n_usize = usize::try_from(n).context("field too large")?;
        out.resize(start + n_usize, 0);
        self.r
            .read_exact(&mut out[start..])
            .with_context(|| format!("truncated inside a field ending at byte {}", self.pos + n))?;
        self.pos += n;
        Ok(())
    }

    fn skip(&mut self, n: u64) -> Result<()> {
        let off = i64::try_from(n).context("field too large")?;
        self.r.seek_relative(off).context("cannot seek")?;
        self.pos += n;
        Ok(())
    }

    /// Notes the small node records that follow each other from file offset `at` on, up to `end` (the
    /// end of the main graph), reading their headers in the mapping; returns where the first other
    /// field starts. A graph of a million nodes is a million such records in a row, and reading each
    /// header through the reader (a buffer refill check per byte, the bytes copied in by `read`) made
    /// the walk of a file too large for [`WALK_MAPPING_BELOW`] cost 2.7 times as much per node (perf).
    /// The decoder reads these records in the mapping anyway. Whatever is not a small node record
    /// (another field, a large record, a malformed header) is left to [`Walker::message`].
    fn small_nodes_from(&mut self, mut at: u64, end: u64) -> u64 {
        // `GraphProto.node`'s key: field 1, length-delimited.
        const NODE_KEY: u8 = ((GRAPH_NODE as u8) << 3) | LEN;
        let end = end.min(self.map.len() as u64);
        while at < end {
            let Some(rest) = usize::try_from(at)
                .ok()
                .and_then(|a| self.map.get(a..end as usize))
            else {
                break;
            };
            if rest.first() != Some(&NODE_KEY) {
                break;
            }
            let Ok((n, body)) = super::encoding::read_varint(rest, 1) else {
                break;
            };
            let body_at = at + body as u64;
            if n > SKIP_ABOVE || n > end - body_at {
                break;
            }
            self.main_nodes.push(NodeRecord(at + 1));
            at = body_at + n;
        }
        at
    }

    /// Copies a (deprecated) group, which can only be an unknown field here, through its end tag.
    fn group(&mut self, field: u32, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        if depth > MAX_DEPTH {
            bail!(
                "groups nested deeper than {MAX_DEPTH} levels at byte {}",
                self.pos
            );
        }
        loop {
            let tag_at = self.pos;
            let key = self.varint(out)?;
            let (f, wire) = ((key >> 3) as u32, (key & 7) as u8);
            if f == 0 {
                bail!("invalid field number 0 at byte {tag_at}");
            }
            match wire {
                0 => {
                    self.varint(out)?;
                }
                1 | 5 => self.copy(if wire == 1 { 8 } else { 4 }, out)?,
                LEN => {
                    let n = self.varint(out)?;
                    if n > self.file_len.saturating_sub(self.pos) {
                        bail!(
                            "field {f} at byte {tag_at} claims {n} bytes, past the end of the file"
                        );
                    }
                    self.copy(n, out)?;
                }
                3 => self.group(f, depth + 1, out)?,
                4 if f == field => return Ok(()),
                4 => bail!("end of group {f} at byte {tag_at} does not close group {field}"),
                _ => bail!("invalid wire type {wire} at byte {tag_at}"),
            }
        }
    }

    /// Copies the message of `len` bytes at the current position into `out`, descending into the
    /// sub-messages that can hold tensors and leaving large `raw_data` payloads in the file.
    fn message(&mut self, msg: Msg, len: u64, depth: usize, out: &mut Vec<u8>) -> Result<()> {
        if depth > MAX_DEPTH {
            bail!(
                "messages nested deeper than {MAX_DEPTH} levels at byte {}",
                self.pos
            );
        }
        let end = self.pos + len;
        // A typed field already met in this tensor: a placeholder is only ever its tensor's first
        // values, which is where `restore_typed` looks for it.
        let mut typed_seen = false;
        while self.pos < end {
            let tag_at = self.pos;
            let (key, tag_raw, tag_len) = self.varint_raw()?;
            let tag = &tag_raw[..tag_len];
            let field = (key >> 3) as u32;
            let wire = (key & 7) as u8;
            if field == 0 {
                // Refused where it is: read on, a file of zeros is a billion empty fields.
                bail!("invalid field number 0 at byte {tag_at}");
            }
            if field == FLOAT_DATA || field == DOUBLE_DATA {
                typed_seen |= wire != LEN;
            }
            match wire {
                0 => {
                    out.extend_from_slice(tag);
                    self.varint(out)?;
                }
                1 | 5 => {
                    out.extend_from_slice(tag);
                    self.copy(if wire == 1 { 8 } else { 4 }, out)?;
                }
                LEN => {
                    let len_at = self.pos;
                    let (n, len_raw, len_len) = self.varint_raw()?;
                    let len_bytes = &len_raw[..len_len];
                    if n > end.saturating_sub(self.pos)
                        || n > self.file_len.saturating_sub(self.pos)
                    {
                        bail!(
                            "field {field} at byte {tag_at} claims {n} bytes, past the end of its message"
                        );
                    }
                    if msg == Msg::MainGraph && field == GRAPH_NODE {
                        if n <= SKIP_ABOVE {
                            self.main_nodes.push(NodeRecord(len_at));
                            let after = self.small_nodes_from(self.pos + n, end);
                            self.skip(after - self.pos)?;
                        } else {
                            let mut big = std::mem::take(&mut self.big_nodes);
                            let start = big.len();
                            let walked = self.message(Msg::Node, n, depth + 1, &mut big);
                            let index = self.big_ranges.len() as u64;
                            self.main_nodes.push(NodeRecord(NodeRecord::BIG | index));
                            self.big_ranges.push(start..big.len());
                            self.big_nodes = big;
                            walked?;
                        }
                    } else if msg == Msg::Tensor && field == RAW_DATA && n > self.raw_left_above {
                        out.extend_from_slice(tag);
                        out.push(32);
                        out.extend_from_slice(&self.nonce);
                        out.extend_from_slice(&self.pos.to_le_bytes());
                        out.extend_from_slice(&n.to_le_bytes());
                        self.skip(n)?;
                    } else if msg == Msg::Tensor
                        && (field == FLOAT_DATA || field == DOUBLE_DATA)
                        && self.typed_left
                        && !std::mem::replace(&mut typed_seen, true)
                        && n > SKIP_ABOVE
                        && n % if field == FLOAT_DATA { 4 } else { 8 } == 0
                    {
                        // Decoded by prost as the first 8 floats (4 doubles) of the field.
                        out.extend_from_slice(tag);
                        out.push(32);
                        out.extend_from_slice(&self.nonce);
                        out.extend_from_slice(&self.pos.to_le_bytes());
                        out.extend_from_slice(&n.to_le_bytes());
                        self.skip(n)?;
                    } else if let Some(sub) = child(msg, field) {
                        // Copied in place under its original length prefix, which stays right unless
                        // a payload inside was left in the file (then the prefix is rewritten).
                        out.extend_from_slice(tag);
                        let prefix_at = out.len();
                        out.extend_from_slice(len_bytes);
                        let body_at = out.len();
                        self.message(sub, n, depth + 1, out)?;
                        let written = (out.len() - body_at) as u64;
                        if written != n {
                            let mut prefix = Vec::with_capacity(10);
                            write_varint(&mut prefix, written);
                            out.splice(prefix_at..body_at, prefix);
                        }
                    } else {
                        out.extend_from_slice(tag);
                        out.extend_from_slice(len_bytes);
                        self.copy(n, out)?;
                    }
                }
                3 => {
                    out.extend_from_slice(tag);
                    self.group(field, depth + 1, out)?;
                }
                _ => bail!("invalid wire type {wire} at byte {tag_at}"),
            }
        }
        if self.pos != end {
            bail!(
                "a field runs past the end of its message (byte {})",
                self.pos
            );
        }
        Ok(())
    }
}

/// A nonce that real tensor data will not start with by chance; it marks placeholders.
fn nonce() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0u8; 16];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_usize(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

/// A [`NodeSink`] of plain `NodeProto`s, for callers that want prost's types (no batch limit).
#[derive(Debug, Default)]
pub struct NodeProtos(pub Vec<NodeProto>);

impl NodeSink for NodeProtos {
    fn with_capacity(nodes: usize, _bytes: usize) -> Self {
        NodeProtos(Vec::with_capacity(nodes))
    }
    fn has_room(&self, _more: usize) -> bool {
        true
    }
    fn push<'a>(
        &mut self,
        _index: usize,
        f: NodeFields<'_>,
        inputs: impl ExactSizeIterator<Item = &'a str>,
        outputs: impl ExactSizeIterator<Item = &'a str>,
    ) {
        self.0.push(NodeProto {
            input: inputs.map(str::to_owned).collect(),
            output: outputs.map(str::to_owned).collect(),
            name: f.name.map(str::to_owned),
            op_type: f.op_type.map(str::to_owned),
            domain: f.domain.map(str::to_owned),
            overload: f.overload,
            attribute: f.attribute,
            doc_string: f.doc_string,
            metadata_props: f.metadata_props,
            device_configurations: f.device_configurations,
        });
    }
}

/// A decoded model whose main graph's nodes were decoded apart, straight into the sink's form `B`
/// (the IR's compact nodes), rather than by prost into `GraphProto.node`: a `NodeProto` is 240 bytes
/// plus a string allocation for every name, and a graph of a million nodes spent most of its memory
/// there.
pub struct Decoded<B> {
    pub model: ModelProto,
    /// The main graph's nodes in file order; `None` when they are in `model.graph.node` as usual.
    pub main_nodes: Option<Vec<B>>,
}

/// Decodes the model in `file` (whose full content is `map`) without reading its large weights.
pub fn decode_file(file: &std::fs::File, map: &Bytes) -> Result<ModelProto> {
    decode_file_split::<NodeProtos>(file, map).map(joined)
}

/// [`decode_file`] by [`decode_file_split_by_reads`].
pub fn decode_file_by_reads(file: &std::fs::File, map: &Bytes) -> Result<ModelProto> {
    decode_file_split_by_reads::<NodeProtos>(file, map).map(joined)
}

/// The model with its main graph's nodes back in it.
fn joined(d: Decoded<NodeProtos>) -> ModelProto {
    let Decoded {
        mut model,
        main_nodes,
    } = d;
    if let (Some(g), Some(batches)) = (&mut model.graph, main_nodes) {
        g.node = batches.into_iter().flat_map(|b| b.0).collect();
    }
    model
}

/// Decodes a model held in memory (standard input) with prost, whole: tensor data stay slices of
/// `bytes` (zero-copy), and there is no file to walk.
pub fn decode_bytes(bytes: Bytes) -> Result<ModelProto> {
    if bytes.is_empty() {
        bail!("file is empty (0 bytes): not an ONNX model");
    }
    // prost's allocations cannot fail softly: bound them first (see `budget`).
    budget::check(budget::Msg::Model, &bytes, budget::From::Shared, "model")?;
    ModelProto::decode(bytes.clone()).map_err(|e| super::truncated::not_a_model(&bytes, e))
}

/// [`decode_file`], with the main graph's nodes apart, in sinks of type `B` (see [`Decoded`]).
pub fn decode_file_split<B: NodeSink>(file: &std::fs::File, map: &Bytes) -> Result<Decoded<B>> {
    if map.len() <= WALK_MAPPING_BELOW {
        return decode_split(std::io::Cursor::new(&map[..]), map, SKIP_ABOVE, true);
    }
    decode_file_split_by_reads(file, map)
}

/// [`decode_file_split`] walking the file with reads whatever its size (what a file over
/// [`WALK_MAPPING_BELOW`] gets); the result is the same either way.
pub fn decode_file_split_by_reads<B: NodeSink>(
    file: &std::fs::File,
    map: &Bytes,
) -> Result<Decoded<B>> {
    decode_split(
        BufReader::with_capacity(64 * 1024, file),
        map,
        SKIP_ABOVE,
        true,
    )
}

/// A file this small is walked in its mapping rather than with reads: all of it paged in is little
/// memory, and the reads copied every byte walked (with their system calls, a tenth of `check` of a
/// folder of real models).
pub const WALK_MAPPING_BELOW: usize = 16 << 20;

/// [`decode_bytes`], with the main graph's nodes apart as [`decode_file_split`] gives them: a graph
/// of many nodes held in memory (standard input, bytes from a caller) is decoded as compactly as
/// one in a file.
pub fn decode_bytes_split<B: NodeSink>(bytes: &Bytes) -> Result<Decoded<B>> {
    if bytes.is_empty() {
        bail!("file is empty (0 bytes): not an ONNX model");
    }
    decode_split(
        std::io::Cursor::new(&bytes[..]),
        bytes,
        PLACEHOLDER_LEN,
        false,
    )
}

/// Walks the model read by `r` (whose full content is `map`), then decodes the compact copy and the
/// main graph's nodes.
fn decode_split<B: NodeSink, R: BufRead + Seek>(
    r: R,
    map: &Bytes,
    raw_left_above: u64,
    typed_left: bool,
) -> Result<Decoded<B>> {
    let len = map.len() as u64;
    let mut w = Walker {
        r,
        map,
        raw_left_above,
        typed_left,
        pos: 0,
        file_len: len,
        nonce: nonce(),
        main_nodes: Vec::new(),
        big_nodes: Vec::new(),
        big_ranges: Vec::new(),
    };
    w.r.rewind().context("cannot read file")?;
    let mut compact = Vec::new();
    let walked = w.message(Msg::Model, len, 0, &mut compact);
    let restore = Restore {
        map,
        nonce: &w.nonce,
    };
    let decoded = walked.and_then(|()| {
        // prost's allocations cannot fail softly: bound them first (see `budget`).
        budget::check(budget::Msg::Model, &compact, budget::From::Slice, "model")?;
        let mut model = ModelProto::decode(compact.as_slice())?;
        drop(compact);
        restore_model(&mut model, map, &w.nonce);
        let main_nodes = decode_nodes(map, (&w.big_nodes, &w.big_ranges), &w.main_nodes, &restore)?;
        Ok(Decoded {
            model,
            main_nodes: Some(main_nodes),
        })
    });
    match decoded {
        Ok(d) => Ok(d),
        // Not malformed: too large to decode here; decoding it whole would abort instead.
        Err(e) if e.is::<OutOfMemory>() => Err(e),
        // A malformed file: decode it whole, for prost's error, which names the field path. (prost
        // may also accept what the walker refused; then its result stands.)
        Err(_) => {
            budget::check(budget::Msg::Model, map, budget::From::Shared, "model")?;
            ModelProto::decode(map.clone())
                .map(|model| Decoded {
                    model,
                    main_nodes: None,
                })
                .map_err(|e| super::truncated::not_a_model(map, e))
        }
    }
}

/// What turns a placeholder back into the slice of the file it stands for.
struct Restore<'a> {
    map: &'a Bytes,
    nonce: &'a [u8; 16],
}

/// Below this many nodes one thread decodes them all: a thread costs more than it saves.
const PARALLEL_NODES_ABOVE: usize = 20_000;

/// Decodes the main graph's node records, in order; the second half on a second thread when there are
/// many (the nodes are independent messages, and nothing else runs yet).
fn decode_nodes<B: NodeSink>(
    map: &[u8],
    (big, big_ranges): (&[u8], &[std::ops::Range<usize>]),
    records: &[NodeRecord],
    restore: &Restore<'_>,
) -> Result<Vec<B>> {
    // Each thread fills its own batch; the graph keeps both vectors as they are (see `NodeList`).
    let decode = |first: usize, rs: &[NodeRecord], room: usize| {
        let mut out = vec![B::with_capacity(room, names_room(rs))];
        for (k, r) in rs.iter().enumerate() {
            let (buf, range, copied) = if r.0 & NodeRecord::BIG == 0 {
                let at = usize::try_from(r.0).context("offset out of range")?;
                let (len, body) = super::encoding::read_varint(map, at)?;
                let len = usize::try_from(len).context("length out of range")?;
                (map, body..body.saturating_add(len).min(map.len()), false)
            } else {
                let index = usize::try_from(r.0 & !NodeRecord::BIG).unwrap_or(usize::MAX);
                let range = big_ranges
                    .get(index)
                    .context("copied node record missing")?;
                (big, range.clone(), true)
            };
            decode_node(buf, range, first + k, !copied, restore, &mut out)?;
        }
        Ok::<_, anyhow::Error>(out)
    };
    if records.len() <= PARALLEL_NODES_ABOVE {
        return decode(0, records, records.len());
    }
    let half = records.len() / 2;
    let (first, second) = records.split_at(half);
    std::thread::scope(|s| {
        let later = std::thread::Builder::new()
            .name("decode".to_owned())
            .spawn_scoped(s, || decode(half, second, second.len()));
        let mut out = decode(0, first, first.len())?;
        let rest = match later.map(|h| h.join()) {
            Ok(Ok(rest)) => rest?,
            // No thread to be had: decode them here.
            Err(_) => decode(half, second, second.len())?,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
        };
        out.extend(rest);
        Ok(out)
    })
}

/// Room for the input and output names of the nodes `rs`: the bytes their records span in the file
/// (names are part of them), but no more than 96 bytes a node (a record may hold a large tensor
/// attribute) nor less than 24. A batch whose names outgrow it is copied as it doubles, into fresh
/// pages: a tenth of the decode of a graph of long names (the 1M-node
/// benchmark model with its broadcasts made explicit).
fn names_room(rs: &[NodeRecord]) -> usize {
    let in_file = |r: &NodeRecord| (r.0 & NodeRecord::BIG == 0).then_some(r.0);
    let span = match (rs.first().and_then(in_file), rs.last().and_then(in_file)) {
        (Some(a), Some(b)) => usize::try_from(b.saturating_sub(a)).unwrap_or(usize::MAX),
        _ => 0,
    };
    span.clamp(rs.len().saturating_mul(24), rs.len().saturating_mul(96))
}

/// Decodes the `NodeProto` record `buf[range]`, the `index`-th of its graph, into the last batch of
/// `out` (or a new one when its names would not fit). Follows prost's rules: repeated fields append, a
/// scalar field set twice keeps the last value, unknown fields are skipped; anything prost would
/// refuse (a known field of another wire type, a string that is not UTF-8) is an error, and the
/// caller then lets prost decode the whole model to say what is wrong. `from_source`: the record is
/// the source file's own (not a copy made to take its large tensors out).
fn decode_node<B: NodeSink>(
    buf: &[u8],
    range: std::ops::Range<usize>,
    index: usize,
    from_source: bool,
    restore: &Restore<'_>,
    out: &mut Vec<B>,
) -> Result<()> {
    let mut node = NodeParts::default();
    // A copied record is not the source's: its encoding says nothing of the source's.
    node.fields.plain_inputs = from_source;
    for r in super::encoding::records(buf, range) {
        node.field(buf, &r?, restore)?;
    }
    let NodeParts {
        inputs,
        outputs,
        fields,
    } = node;
    let bytes = inputs.iter().chain(&outputs).map(|s| s.len()).sum();
    if out.last().is_none_or(|b| !b.has_room(bytes)) {
        out.push(B::default());
    }
    if let Some(batch) = out.last_mut() {
        batch.push(index, fields, inputs.into_iter(), outputs.into_iter());
    }
    Ok(())
}

/// A node record as [`decode_node`] reads it, field by field.
#[derive(Default)]
struct NodeParts<'a> {
    // Inline: a vector each would be two allocations per node, a million times.
    inputs: smallvec::SmallVec<[&'a str; 4]>,
    outputs: smallvec::SmallVec<[&'a str; 2]>,
    fields: NodeFields<'a>,
}

impl<'a> NodeParts<'a> {
    fn field(&mut self, buf: &'a [u8], r: &Record, restore: &Restore<'_>) -> Result<()> {
        use super::schema::node as f;
        let payload = || -> Result<&'a [u8]> {
            if r.wire_type != LEN {
                bail!("NodeProto field {} of wire type {}", r.field, r.wire_type);
            }
            Ok(&buf[r.payload.clone()])
        };
        let text = || -> Result<&'a str> {
            std::str::from_utf8(payload()?).context("a NodeProto string is not UTF-8")
        };
        let fields = &mut self.fields;
        match r.field {
            f::INPUT => {
                self.inputs.push(text()?);
                fields.plain_inputs &= r.span.len() as u64
                    == super::encoding::record_len(f::INPUT, r.payload.len() as u64);
            }
            f::OUTPUT => self.outputs.push(text()?),
            f::NAME => fields.name = Some(text()?),
            f::OP_TYPE => fields.op_type = Some(text()?),
            f::DOMAIN => fields.domain = Some(text()?),
            f::OVERLOAD => fields.overload = Some(text()?.to_owned()),
            f::DOC_STRING => fields.doc_string = Some(text()?.to_owned()),
            f::ATTRIBUTE => {
                // prost's allocations cannot fail softly: bound them first (see `budget`).
                budget::check(
                    budget::Msg::Attribute,
                    payload()?,
                    budget::From::Slice,
                    "attribute",
                )?;
                let mut a = AttributeProto::decode(payload()?)?;
                restore_attribute(&mut a, restore.map, restore.nonce);
                fields.attribute.push(a);
            }
            f::METADATA_PROPS => fields
                .metadata_props
                .push(StringStringEntryProto::decode(payload()?)?),
            f::DEVICE_CONFIGURATIONS => fields
                .device_configurations
                .push(NodeDeviceConfigurationProto::decode(payload()?)?),
            _ => {} // unknown: skipped, as prost does
        }
        Ok(())
    }
}

/// Swaps every placeholder for the slice of `map` it names (or the values it holds).
fn restore_tensor(t: &mut TensorProto, map: &Bytes, nonce: &[u8; 16]) {
    restore_typed(
        &mut t.float_data,
        map,
        nonce,
        f32::to_le_bytes,
        f32::from_le_bytes,
    );
    restore_typed(
        &mut t.double_data,
        map,
        nonce,
        f64::to_le_bytes,
        f64::from_le_bytes,
    );
    let Some(raw) = &t.raw_data else { return };
    if raw.len() != 32 || raw[..16] != nonce[..] {
        return;
    }
    let word = |i: usize| u64::from_le_bytes(raw[i..i + 8].try_into().unwrap_or([0; 8])) as usize;
    let (offset, len) = (word(16), word(24));
    // The walker checked that [offset, offset + len) lies inside the file.
    t.raw_data = Some(map.slice(offset..offset + len));
}

/// Replaces a placeholder at the start of `values` (32 bytes read as values) by the values of the
/// slice of `map` it names, decoded straight into a vector of their number.
fn restore_typed<T: Copy, const N: usize>(
    values: &mut Vec<T>,
    map: &Bytes,
    nonce: &[u8; 16],
    to: fn(T) -> [u8; N],
    from: fn([u8; N]) -> T,
) {
    let head = 32 / N;
    if values.len() < head {
        return;
    }
    let mut raw = [0u8; 32];
    for (i, v) in values[..head].iter().enumerate() {
        raw[i * N..(i + 1) * N].copy_from_slice(&to(*v));
    }
    if raw[..16] != nonce[..] {
        return;
    }
    let word = |i: usize| u64::from_le_bytes(raw[i..i + 8].try_into().unwrap_or([0; 8])) as usize;
    let (offset, len) = (word(16), word(24));
    // The walker checked that [offset, offset + len) lies inside the file, and that len is a multiple
    // of N.
    let Some(bytes) = map.get(offset..offset.saturating_add(len)) else {
        return;
    };
    let mut out = Vec::with_capacity(len / N + values.len() - head);
    out.extend(
        bytes
            .chunks_exact(N)
            .map(|c| from(c.try_into().unwrap_or([0; N]))),
    );
    out.extend_from_slice(&values[head..]);
    *values = out;
}

fn restore_model(m: &mut ModelProto, map: &Bytes, nonce: &[u8; 16]) {
    if let Some(g) = &mut m.graph {
        restore_graph(g, map, nonce);
    }
    for t in &mut m.training_info {
        for g in t.initialization.iter_mut().chain(t.algorithm.iter_mut()) {
            restore_graph(g, map, nonce);
        }
    }
    for f in &mut m.functions {
        restore_function(f, map, nonce);
    }
}

fn restore_function(f: &mut FunctionProto, map: &Bytes, nonce: &[u8; 16]) {
    for n in &mut f.node {
        restore_node(n, map, nonce);
    }
    for a in &mut f.attribute_proto {
        restore_attribute(a, map, nonce);
    }
}

fn restore_graph(g: &mut GraphProto, map: &Bytes, nonce: &[u8; 16]) {
    for t in &mut g.initializer {
        restore_tensor(t, map, nonce);
    }
    for s in &mut g.sparse_initializer {
        for t in s.values.iter_mut().chain(s.indices.iter_mut()) {
            restore_tensor(t, map, nonce);
        }
    }
    for n in &mut g.node {
        restore_node(n, map, nonce);
    }
}

fn restore_node(n: &mut NodeProto, map: &Bytes, nonce: &[u8; 16]) {
    for a in &mut n.attribute {
        restore_attribute(a, map, nonce);
    }
}

fn restore_attribute(a: &mut AttributeProto, map: &Bytes, nonce: &[u8; 16]) {
    for t in a.t.iter_mut().chain(a.tensors.iter_mut()) {
        restore_tensor(t, map, nonce);
    }
    for s in a
        .sparse_tensor
        .iter_mut()
        .chain(a.sparse_tensors.iter_mut())
    {
        for t in s.values.iter_mut().chain(s.indices.iter_mut()) {
            restore_tensor(t, map, nonce);
        }
    }
    for g in a.g.iter_mut().chain(a.graphs.iter_mut()) {
        restore_graph(g, map, nonce);
    }
}
