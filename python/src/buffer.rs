//! A model in any object with the buffer protocol, read where it lies.
//!
//! pyo3's `PyBuffer` needs the buffer protocol in the limited API, which it is from Python 3.11 on;
//! this extension is built for the limited API of 3.9 (one wheel for every CPython from 3.9), so the
//! two functions are declared here. `PyObject_GetBuffer` and `PyBuffer_Release` and the layout of
//! `Py_buffer` are the same in every CPython 3 (and part of the stable ABI since 3.11); on Unix the
//! extension resolves them in the interpreter that loads it. On other systems an abi3 module links
//! to `python3.dll`, which exports them only from 3.11 on: there the buffer is copied into `bytes`
//! instead (the memory the copy takes, not its safety, is what differs).

use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// The length of `obj`'s buffer, in bytes, refused over protobuf's limit before anything is read.
fn checked_len(len: usize) -> PyResult<()> {
    super::too_large(len)
}

/// Whether nothing Python does can change the bytes of `obj` (see `Source::new`): `bytes`, a
/// `memoryview` of `bytes`, or a read-only `mmap` (its file may change as a mapped path's may).
#[cfg(unix)]
fn frozen(obj: &Bound<'_, PyAny>, readonly: bool) -> PyResult<bool> {
    let py = obj.py();
    let base = match obj.cast::<pyo3::types::PyMemoryView>() {
        Ok(view) => view.getattr("obj")?,
        Err(_) => obj.clone(),
    };
    if base.is_exact_instance_of::<PyBytes>() {
        return Ok(true);
    }
    let mmap = py.import("mmap")?.getattr("mmap")?;
    Ok(readonly && base.is_instance(&mmap)?)
}

#[cfg(unix)]
mod ffi {
    use pyo3::ffi::{Py_ssize_t, PyObject};
    use std::os::raw::{c_char, c_int, c_void};

    /// `Py_buffer` (Include/pybuffer.h), unchanged since Python 3.3.
    #[repr(C)]
    pub struct RawBuffer {
        pub buf: *mut c_void,
        pub obj: *mut PyObject,
        pub len: Py_ssize_t,
        pub itemsize: Py_ssize_t,
        pub readonly: c_int,
        pub ndim: c_int,
        pub format: *mut c_char,
        pub shape: *mut Py_ssize_t,
        pub strides: *mut Py_ssize_t,
        pub suboffsets: *mut Py_ssize_t,
        pub internal: *mut c_void,
    }

    /// `PyBUF_SIMPLE`: a contiguous run of bytes, read-only is fine (a non-contiguous exporter
    /// refuses with `BufferError`).
    pub const PYBUF_SIMPLE: c_int = 0;

    unsafe extern "C" {
        pub fn PyObject_GetBuffer(obj: *mut PyObject, view: *mut RawBuffer, flags: c_int) -> c_int;
        pub fn PyBuffer_Release(view: *mut RawBuffer);
    }
}

/// An exported buffer, released (with the interpreter) when the last `Bytes` over it is dropped.
#[cfg(unix)]
struct Lent {
    view: Box<ffi::RawBuffer>,
}

#[cfg(unix)]
impl AsRef<[u8]> for Lent {
    fn as_ref(&self) -> &[u8] {
        let len = usize::try_from(self.view.len).unwrap_or(0);
        if len == 0 || self.view.buf.is_null() {
            return &[];
        }
        // SAFETY: `buf` and `len` describe the contiguous memory the exporter keeps valid, at that
        // length, until the buffer is released (in `drop`); see `Source::new` for who may write it.
        unsafe { std::slice::from_raw_parts(self.view.buf as *const u8, len) }
    }
}

#[cfg(unix)]
impl Drop for Lent {
    fn drop(&mut self) {
        // The last `Bytes` is the `Source`'s, dropped by the calling thread after the work (which
        // holds or takes the interpreter here; never while waiting on the worker).
        Python::attach(|_| {
            // SAFETY: the view was filled by a successful `PyObject_GetBuffer`, released once.
            unsafe { ffi::PyBuffer_Release(&mut *self.view) }
        });
    }
}

// SAFETY: the memory is read only through `as_ref` (no interior mutability of ours); the release
// takes the interpreter, whatever the thread.
#[cfg(unix)]
unsafe impl Send for Lent {}

/// The bytes of `obj`'s buffer without a copy, and whether they are frozen (see `Source::new`).
#[cfg(unix)]
pub fn lend(obj: &Bound<'_, PyAny>) -> PyResult<(Bytes, bool)> {
    let mut view = Box::new(ffi::RawBuffer {
        buf: std::ptr::null_mut(),
        obj: std::ptr::null_mut(),
        len: 0,
        itemsize: 0,
        readonly: 0,
        ndim: 0,
        format: std::ptr::null_mut(),
        shape: std::ptr::null_mut(),
        strides: std::ptr::null_mut(),
        suboffsets: std::ptr::null_mut(),
        internal: std::ptr::null_mut(),
    });
    // SAFETY: `obj` is a live object (the interpreter is held: `obj` is bound); `view` is a
    // `Py_buffer` to fill.
    let got = unsafe { ffi::PyObject_GetBuffer(obj.as_ptr(), &mut *view, ffi::PYBUF_SIMPLE) };
    if got != 0 {
        let err = PyErr::take(obj.py()).unwrap_or_else(|| {
            pyo3::exceptions::PyTypeError::new_err("the object does not lend its bytes")
        });
        // A view whose bytes are not one contiguous run (a strided `memoryview`) cannot be lent.
        if err.is_instance_of::<pyo3::exceptions::PyBufferError>(obj.py()) {
            return copied(obj);
        }
        return Err(err);
    }
    let readonly = view.readonly != 0;
    // Released on every path from here: `Lent` owns it.
    let lent = Lent { view };
    checked_len(lent.as_ref().len())?;
    let frozen = frozen(obj, readonly)?;
    Ok((Bytes::from_owner(lent), frozen))
}

/// Without the buffer functions: a copy, as `memoryview(obj).tobytes()` makes it (its length
/// checked first); the copy is ours, so it is frozen.
#[cfg(not(unix))]
pub fn lend(obj: &Bound<'_, PyAny>) -> PyResult<(Bytes, bool)> {
    copied(obj)
}

/// A copy of the bytes of `obj` (also what a non-contiguous `memoryview` gets, whose bytes are not
/// one run), its length checked before it is made.
fn copied(obj: &Bound<'_, PyAny>) -> PyResult<(Bytes, bool)> {
    let py = obj.py();
    let view = py
        .import("builtins")?
        .getattr("memoryview")?
        .call1((obj,))?;
    checked_len(view.getattr("nbytes")?.extract()?)?;
    let copy = view.call_method0("tobytes")?;
    let b = copy.cast_into::<PyBytes>()?;
    Ok((Bytes::from_owner(super::PyOwned::new(b)), true))
}
