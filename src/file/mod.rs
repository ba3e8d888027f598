//! The byte layer: everything that touches a model's bytes and nothing that knows what they mean
//! beyond the protobuf schema.
//!
//! - [`read`](mod@read): a file memory-mapped (weights are never copied) or standard input read whole,
//!   and the one place every file onnx-lint reads is opened (regular files only); [`guard`]: the
//!   mapping kept safe from a file cut short under it;
//! - [`decode`]: the schema-aware decoder that walks a file without paging its weights in, and hands
//!   the main graph's node records to a [`sink::NodeSink`] (the IR's compact nodes: the decoder does
//!   not name the IR, which sits above this layer, and the IR names only the sink, never the decoder);
//! - [`budget`]: a bound of the heap prost takes to decode a buffer, asked of the allocator before the
//!   decode (prost cannot fail an allocation: a refusal would abort), an [`budget::OutOfMemory`] error;
//! - [`schema`]: the protobuf field numbers records are addressed by; [`encoding`]: the wire
//!   format (varints, records, the scan of a message), the bottom of what follows;
//! - [`node_record`]: a node's record read once, and the one encoder of a node record;
//! - [`made`]: the [`made::MadeRecord`]s a list edit makes as it writes, from the record of the
//!   node they go before (a pass defines them; this layer knows only their bytes); [`list_edit`]:
//!   the compact edit of a graph's node list (nodes inserted or made, inputs rewired, nodes removed) its
//!   removals sorted by `positions`;
//! - [`edit`]: the edit of a message (records by field and occurrence, one list edit) and its
//!   measure; [`two_part`]: a large edit measured and written by two threads at once, each its
//!   part of the file; [`wire`]: the splicer that writes a model back with an edit applied, copying
//!   every untouched record byte for byte, and re-exports the format's public parts;
//! - [`atomic`]: files written through a temporary file and a rename; [`output`]: what an output path
//!   is and whether it may be written (links followed, devices and FIFOs written through, inputs and
//!   unwritable files refused); [`temp`]: the temporary files, removed on a signal or by a later write.

pub mod atomic;
pub mod budget;
pub mod decode;
pub mod edit;
pub mod encoding;
pub mod guard;
pub mod list_edit;
pub mod made;
pub mod node_record;
pub mod output;
mod positions;
pub mod read;
pub mod schema;
pub mod sink;
pub mod temp;
mod truncated;
pub mod two_part;
pub mod wire;

pub use read::{Content, MAX_PROTOBUF_BYTES, Origin, read};
