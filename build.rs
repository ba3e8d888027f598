//! Generates the prost types for `proto/onnx-ml.proto`.
//!
//! The `.proto` is compiled by protox (pure Rust), so no system `protoc` is needed. Every `bytes` field is
//! generated as `bytes::Bytes`: decoding from a `Bytes` over the memory-mapped file then slices the
//! mapping instead of copying weights.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/onnx-ml.proto");
    let fds = protox::compile(["onnx-ml.proto"], ["proto"])?;
    prost_build::Config::new().bytes(["."]).compile_fds(fds)?;
    Ok(())
}
