//! Writing models: `expand` (snapshots of the rewrite, record encodings, kernel exceptions), `fold`,
//! `write::to_vec`, external data carried beside a written model, and writers that never destroy a
//! file.

mod annotate;
mod carry_data;
mod expand_encoding;
mod expand_snapshots;
mod fold;
mod hostile_writes;
mod kernel_exceptions;
mod write_to_vec;
