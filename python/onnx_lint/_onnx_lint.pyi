"""Type stubs of the Rust extension; the public API is in ``onnx_lint`` (``__init__.py``)."""

from typing import Any, Dict, List, Optional, Tuple, Union

__version__: str

Dim = Union[int, str, None]
Shape = Optional[List[Dim]]

class LoadError(ValueError): ...
class ModelRefused(ValueError): ...

class Report:
    @property
    def file(self) -> str: ...
    def diagnostics(self) -> List[Dict[str, Any]]: ...
    def to_json(self) -> str: ...
    def to_sarif(self) -> str: ...

def check(
    path: Optional[str],
    data: Optional[Union[bytes, bytearray, memoryview]],
    file: str,
    select: Optional[List[str]],
    ignore: List[str],
    dims: List[Tuple[str, str]] = ...,
) -> Report: ...
def shapes(path: Optional[str], data: Optional[Union[bytes, bytearray, memoryview]]) -> List[Tuple[str, str, Optional[str], Shape]]: ...
def dims(
    path: Optional[str],
    data: Optional[Union[bytes, bytearray, memoryview]],
    file: str,
    dims: List[Tuple[str, str]] = ...,
) -> str: ...
def expand(
    path: Optional[str],
    data: Optional[Union[bytes, bytearray, memoryview]],
    file: str,
    output: Optional[str],
    keep_scalars: bool,
    force_explicit: bool,
    in_place: bool,
) -> Optional[bytes]: ...
def fold(
    path: Optional[str], data: Optional[Union[bytes, bytearray, memoryview]], file: str, output: Optional[str], in_place: bool
) -> Optional[bytes]: ...
def annotate(
    path: Optional[str],
    data: Optional[Union[bytes, bytearray, memoryview]],
    file: str,
    output: Optional[str],
    expressions: bool,
    outputs_too: bool,
    strip: bool,
    force: bool,
    in_place: bool,
) -> Optional[bytes]: ...
def main(argv: List[str]) -> int: ...
