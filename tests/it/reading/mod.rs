//! Reading models: the decoder and the IR it builds, load options, external data, and bad or
//! hostile input (truncated, malformed, huge, cyclic, or changing while read), which must end in a
//! finding or a clean refusal, never a panic, a hang or unbounded memory.

mod bad_inputs;
mod bad_inputs_more;
mod decode;
mod external_data;
mod hostile_complexity;
mod hostile_reads;
mod ir;
mod load_options;
