//! The field numbers of ONNX's protobuf schema (`proto/onnx.proto`) that the byte layer and the
//! writers above it address records by: one place, so that a decoder, a splicer and a pass that
//! each spell `NodeProto.input` cannot disagree on it. Only the fields some code addresses by
//! number are here; prost's generated types know the rest.

/// `ModelProto`.
pub mod model {
    pub const GRAPH: u32 = 7;
    pub const TRAINING_INFO: u32 = 20;
    pub const FUNCTIONS: u32 = 25;
}

/// `GraphProto`.
pub mod graph {
    pub const NODE: u32 = 1;
    pub const INITIALIZER: u32 = 5;
    pub const INPUT: u32 = 11;
    pub const OUTPUT: u32 = 12;
    pub const VALUE_INFO: u32 = 13;
    pub const SPARSE_INITIALIZER: u32 = 15;
}

/// `FunctionProto`.
pub mod function {
    pub const NODE: u32 = 7;
    pub const ATTRIBUTE_PROTO: u32 = 11;
    pub const VALUE_INFO: u32 = 12;
}

/// `TrainingInfoProto`.
pub mod training_info {
    pub const INITIALIZATION: u32 = 1;
    pub const ALGORITHM: u32 = 2;
}

/// `NodeProto`. Every number is below 16: a field's tag is one byte.
pub mod node {
    pub const INPUT: u32 = 1;
    pub const OUTPUT: u32 = 2;
    pub const NAME: u32 = 3;
    pub const OP_TYPE: u32 = 4;
    pub const ATTRIBUTE: u32 = 5;
    pub const DOC_STRING: u32 = 6;
    pub const DOMAIN: u32 = 7;
    pub const OVERLOAD: u32 = 8;
    pub const METADATA_PROPS: u32 = 9;
    pub const DEVICE_CONFIGURATIONS: u32 = 10;
}

/// `AttributeProto`.
pub mod attribute {
    pub const T: u32 = 5;
    pub const G: u32 = 6;
    pub const TENSORS: u32 = 10;
    pub const GRAPHS: u32 = 11;
    pub const SPARSE_TENSOR: u32 = 22;
    pub const SPARSE_TENSORS: u32 = 23;
}

/// `TensorProto`.
pub mod tensor {
    /// Packed, fixed-width: a payload is the values' bytes.
    pub const FLOAT_DATA: u32 = 4;
    pub const RAW_DATA: u32 = 9;
    /// Packed, fixed-width, as `FLOAT_DATA`.
    pub const DOUBLE_DATA: u32 = 10;
}

/// `SparseTensorProto`.
pub mod sparse_tensor {
    pub const VALUES: u32 = 1;
    pub const INDICES: u32 = 2;
}
