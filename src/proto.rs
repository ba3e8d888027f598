//! The ONNX protobuf types, generated at build time from `proto/onnx-ml.proto` by `build.rs`.
#![allow(clippy::all, missing_docs)]

include!(concat!(env!("OUT_DIR"), "/onnx.rs"));
