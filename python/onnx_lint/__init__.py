"""onnx-lint in Python: check ONNX models for broadcasting errors and structural faults, make their
implicit broadcasts explicit (``expand``) or remove redundant Expands (``fold``), and list the shapes it
infers -- in process, on a path, bytes or an ``onnx.ModelProto``.

    >>> import onnx, onnx_lint
    >>> report = onnx_lint.check(onnx.load("models/broken/e1_add.onnx"))
    >>> [d.code for d in report.errors]
    ['E1']

The work is done by the same Rust library the ``onnx-lint`` command runs (installed with this package),
with the interpreter lock released: threads check models in parallel. Nothing here imports ``onnx``;
a ``ModelProto`` is recognised by its ``SerializeToString`` method.
"""

from __future__ import annotations

import errno
import os
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple, Union

from . import _onnx_lint
from ._onnx_lint import LoadError

__version__: str = _onnx_lint.__version__

__all__ = [
    "Diagnostic",
    "LoadError",
    "ModelHasErrors",
    "Report",
    "Shapes",
    "ValueShape",
    "annotate",
    "check",
    "dims",
    "expand",
    "fold",
    "shapes",
]

#: A dimension: an int (known size), a str (symbolic size, e.g. ``"batch"`` or ``"seq*12"``) or None
#: (unknown).
Dim = Union[int, str, None]
#: A shape: a list of dimensions, or None when even the rank is unknown.
Shape = Optional[List[Dim]]
#: What ``check``, ``shapes``, ``expand`` and ``fold`` take as a model.
ModelLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]


class Diagnostic:
    """One finding of ``check``, as ``onnx-lint check`` reports it.

    Attributes:
        code: the rule's code (``"E1"``, ``"W1"``, ``"G001"``...; ``onnx-lint explain CODE`` documents it).
        name: the rule's name (``"broadcast-error"``).
        severity: ``"error"``, ``"warning"`` or ``"info"``.
        message: the one-line message.
        graph: the graph's path (``"main"``, ``"main/loop_1/body"``).
        node, op_type: the node the finding is at (None for findings not at a node). A finding inside
            a model-local function is reported at the calling node; ``inner_node`` names the node of
            the function body.
        contract: for a broken operator contract (E2, W2, E3), its name (``"matmul-inner"``;
            ``docs/contracts.md`` lists them), else None.
        axis: for broadcast findings, the axis counted from the end (-1 is the last), else None.
        sizes: for broadcast errors and broken contracts, the conflicting sizes in input order, else [].
        inputs: for a finding at a node, the name and inferred shape of each of its inputs, as
            ``(name, shape)`` pairs (``shape`` a list of int/str/None, or None when unknown; an absent
            optional input is ``("", None)``); None when the finding is at no node.
        notes: further lines (the inputs and their shapes, the condition, a hint).
    """

    __slots__ = (
        "code",
        "name",
        "severity",
        "message",
        "graph",
        "node",
        "op_type",
        "inner_node",
        "contract",
        "axis",
        "sizes",
        "inputs",
        "notes",
    )

    code: str
    name: str
    severity: str
    message: str
    graph: str
    node: Optional[str]
    op_type: Optional[str]
    inner_node: Optional[str]
    contract: Optional[str]
    axis: Optional[int]
    sizes: List[int]
    inputs: Optional[List[Tuple[str, Shape]]]
    notes: List[str]

    def __init__(self, fields: Dict[str, Any]) -> None:
        for k in self.__slots__:
            setattr(self, k, fields[k])

    def __repr__(self) -> str:
        where = f" at {self.node!r} ({self.op_type})" if self.node is not None else ""
        return f"<Diagnostic {self.code} {self.severity}{where}: {self.message}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Diagnostic):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable lists inside


class Report:
    """What ``check`` found in one model.

    Attributes:
        file: how the model is named in ``to_json``/``to_sarif``: its path, ``"<bytes>"`` or
            ``"<ModelProto>"``.
        diagnostics: every finding kept by the rule selection, in a stable order.
    """

    __slots__ = ("file", "diagnostics", "_native")

    def __init__(self, native: Any, file: Optional[str] = None) -> None:
        self._native = native
        # The name as the caller gave it (a path with undecodable bytes keeps its surrogate escapes;
        # the renderings, which must be UTF-8, show them replaced, as the command does).
        self.file: str = native.file if file is None else file
        self.diagnostics: List[Diagnostic] = [Diagnostic(d) for d in native.diagnostics()]

    @property
    def errors(self) -> List[Diagnostic]:
        """The findings of severity ``"error"`` (those that make ``onnx-lint check`` exit 1)."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return not self.errors

    def to_json(self) -> str:
        """The JSON document ``onnx-lint check --format json`` prints for this model."""
        return self._native.to_json()

    def to_sarif(self) -> str:
        """The SARIF 2.1.0 log ``onnx-lint check --format sarif`` prints for this model."""
        return self._native.to_sarif()

    def __repr__(self) -> str:
        counts = {"error": 0, "warning": 0, "info": 0}
        for d in self.diagnostics:
            counts[d.severity] = counts.get(d.severity, 0) + 1
        codes = sorted({d.code for d in self.diagnostics})
        def n(k: str) -> str:
            return f"{counts[k]} {k}{'' if counts[k] == 1 else 's'}"

        listed = f" ({', '.join(codes)})" if codes else ""
        return f"<Report {self.file}: {n('error')}, {n('warning')}, {n('info')}{listed}>"


class ModelHasErrors(ValueError):
    """``expand`` or ``fold`` refused a model with errors (nothing was written); ``.report`` says
    which."""

    def __init__(self, report: Report) -> None:
        self.report = report
        shown = "; ".join(f"{d.code} {d.message}" for d in report.errors[:3])
        more = len(report.errors) - 3
        n = len(report.errors)
        super().__init__(
            f"{report.file} has {n} error{'' if n == 1 else 's'}, nothing written: {shown}"
            + (f" (and {more} more)" if more > 0 else "")
        )


def _message_name(model: Any) -> Optional[str]:
    """The protobuf message type of ``model`` (``ModelProto``, ``GraphProto``...), from its descriptor
    (``onnx.GraphProto.DESCRIPTOR.name``), else from its class name when that ends in ``Proto``; None
    for an object that says neither."""
    name = getattr(getattr(model, "DESCRIPTOR", None), "name", None)
    if isinstance(name, str) and name:
        return name
    cls = type(model).__name__
    return cls if cls.endswith("Proto") else None


def _source(model: ModelLike) -> Tuple[Optional[str], Any, str]:
    """(path, data, name shown) for what the caller passed: a path, bytes, or a ModelProto.

    A path is passed on as the OS gave it: a str with surrogate escapes (``os.listdir`` of a folder
    holding names that are not UTF-8, ``os.fsdecode`` of bytes) names the same bytes to the library.
    A buffer (bytearray, memoryview) is passed on as it is: the extension reads it in place, never
    copied, and refuses one over protobuf's 2 GiB limit before reading it."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fsdecode(os.fspath(model))
        if os.path.isdir(path):
            # The library says "is a directory" in words; Python has an exception for it.
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        return path, None, path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return None, model, "<bytes>"
    serialize = getattr(model, "SerializeToString", None)
    if callable(serialize):
        message = _message_name(model)
        if message is not None and message != "ModelProto":
            # The bytes of a GraphProto, TensorProto... fail to decode with a wire-type error that
            # names neither; the object says what it is.
            raise TypeError(f"expected a ModelProto, got a {message}")
        data = serialize()
        if not isinstance(data, bytes):
            raise TypeError(f"{type(model).__name__}.SerializeToString() returned {type(data).__name__}, not bytes")
        return None, data, f"<{type(model).__name__}>"
    raise TypeError(
        "model must be a path (str or os.PathLike), bytes, bytearray, memoryview or an "
        f"onnx.ModelProto, not {type(model).__name__}"
    )


def _selectors(v: Union[None, str, Iterable[str]], what: str) -> Optional[List[str]]:
    if v is None:
        return None
    if isinstance(v, str):
        return [v]
    out = list(v)
    for s in out:
        if not isinstance(s, str):
            raise TypeError(f"{what} must be a str or a list of str, not a list holding {type(s).__name__}")
    return out


def check(
    model: ModelLike,
    *,
    select: Union[None, str, Iterable[str]] = None,
    ignore: Union[None, str, Iterable[str]] = None,
    dims: Optional[Mapping[str, Union[int, str, range]]] = None,
) -> Report:
    """Check a model, as ``onnx-lint check`` does, and return its findings.

    Args:
        model: a path (str or os.PathLike: the file is memory-mapped, and its external data are
            found relative to its folder; a name that is not UTF-8 is taken as ``os.listdir`` gives
            it, and a path in bytes as ``os.fsdecode(p)``, since bytes are a model), the model's bytes
            (bytes, bytearray or memoryview, e.g. of an ``mmap``: read in place, not copied; the
            interpreter is released unless the buffer is one Python code could write meanwhile, a
            bytearray or a writable mapping), or an ``onnx.ModelProto`` (serialized once; external
            data must then be loaded into it, as ``onnx.load`` does by default).
        select: codes, code prefixes or rule names to report instead of the default set (``"E1"``,
            ``"W"``, ``"broadcast-error"``, ``"ALL"``); one str or a list. ``"B001"`` (or
            ``"ALL"``) adds the implicit broadcasts, as ``check --explicit`` does.
        ignore: codes, prefixes or names not to report, over ``select``.
        dims: the values a deployment gives the model's input symbols, as ``check --dim`` takes
            them: ``{"seq": "1..8192", "batch": range(1, 65)}`` (an int fixes the
            size; a str ``"LO..HI"`` (both ends included) or ``"LO.."`` is a range; a ``range`` of
            step 1 is the same range). A name is a ``dim_param`` of a graph input or the positional
            name of an axis without one (``"x[3]"``). Fixed sizes flow through inference (a
            broadcast that then fails is E1); over ranges a W1 or W2 becomes an error when every
            value fails, disappears when none does, or says exactly which values fail.

    Returns:
        A :class:`Report`: ``.diagnostics``, ``.errors``, ``.ok``, ``.to_json()``, ``.to_sarif()``.

    Raises:
        ValueError: a selector names no rule (the message names it), or a ``dims`` value is not a
            size or a range.
        LoadError: a ``dims`` name is no input dim of the model (the message lists those it has).
        LoadError: the bytes are not an ONNX model (truncated, corrupt, not protobuf). A ValueError.
        ValueError: the bytes are over protobuf's 2 GiB limit (refused before they are read).
        MemoryError: decoding the model needs more memory than can be allocated (e.g. millions of
            empty repeated messages, under an address-space limit).
        OSError: a path cannot be read (FileNotFoundError, PermissionError, IsADirectoryError...).
        TypeError: ``model`` is none of the above.

    No configuration file (``onnx-lint.toml``) is read: the rules are the defaults with ``select`` and
    ``ignore`` over them. The interpreter lock is released while the model is checked.
    """
    path, data, name = _source(model)
    native = _onnx_lint.check(
        path, data, name, _selectors(select, "select"), _selectors(ignore, "ignore") or [], _dims(dims)
    )
    return Report(native, name)


def _dims(dims: Optional[Mapping[str, Union[int, str, range]]]) -> List[Tuple[str, str]]:
    """``dims`` as (name, value as ``--dim`` writes it) pairs."""
    if dims is None:
        return []
    if not isinstance(dims, Mapping):
        raise TypeError(f"dims must be a mapping of names to sizes or ranges, not {type(dims).__name__}")
    out = []
    for name, value in dims.items():
        if not isinstance(name, str):
            raise TypeError(f"dims: a name must be a str, not {type(name).__name__}")
        if isinstance(value, bool):
            raise TypeError(f"dims[{name!r}]: a bool is not a size")
        if isinstance(value, int):
            text = str(value)
        elif isinstance(value, str):
            text = value
        elif isinstance(value, range):
            if value.step != 1 or len(value) == 0:
                raise ValueError(f"dims[{name!r}]: a range must be of step 1 and not empty")
            text = f"{value.start}..{value.stop - 1}"
        else:
            raise TypeError(f"dims[{name!r}]: a size (int) or a range (\"LO..HI\", range), not {type(value).__name__}")
        out.append((name, text))
    return out


class ValueShape(NamedTuple):
    """The element type and shape inferred for a value."""

    #: The element type's name (``"FLOAT"``, ``"INT64"``...), or None when unknown.
    elem_type: Optional[str]
    #: A list of int (known), str (symbolic) and None (unknown) dimensions, or None when the rank is
    #: unknown.
    shape: Shape


class Shapes(Dict[str, ValueShape]):
    """The values of the main graph by name; ``.graphs`` maps every graph's path (``"main"``,
    ``"main/loop_1/body"``, ``"function:<domain>.<name>"``...: the ``graph`` field of
    ``onnx-lint shapes --format json``) to its values by name."""

    graphs: Dict[str, Dict[str, ValueShape]]

    def __init__(self) -> None:
        super().__init__()
        self.graphs = {}


def shapes(model: ModelLike) -> Shapes:
    """The element type and shape inferred for every value, as ``onnx-lint shapes --format json`` lists
    them.

    Returns a :class:`Shapes`: a dict of the main graph's values by name, each a :class:`ValueShape`
    ``(elem_type, shape)``; ``.graphs[path][name]`` has the values of every graph, subgraphs and
    function bodies included. Takes ``model`` as :func:`check` does and raises what it raises.
    """
    path, data, _ = _source(model)
    out = Shapes()
    for graph, name, elem, shape in _onnx_lint.shapes(path, data):
        # A name defined twice (a G003 finding) keeps its first definition's shape.
        out.graphs.setdefault(graph, {}).setdefault(name, ValueShape(elem, shape))
    out.update(out.graphs.get(_MAIN, {}))
    return out


def dims(model: ModelLike, dims: Optional[Mapping[str, Union[int, str, range]]] = None) -> Dict[str, Any]:
    """The sizes report of a model, as ``onnx-lint dims --format json`` writes it: every input symbol
    with the conditions the model puts on it, where each comes from, and the values at which the
    model has no finding (see ``docs/sizes-report.md`` for every field).

    Args:
        model: as :func:`check` takes it.
        dims: the values the symbols are judged over, as :func:`check` takes them: an int fixes a
            symbol (its sizes become numbers), a range (``"1..8192"``, ``range(1, 8193)``) is the set
            its values are judged over; a symbol not named is judged over 1..=65536.

    Returns:
        A dict of plain lists, dicts, str, int, bool and None: ``"symbols"`` (each with ``"name"``,
        ``"appears"``, ``"domain"``, the indices of its conditions in ``"alone"`` and ``"joint"``,
        ``"no_finding"`` and ``"text"``), ``"conditions"``, ``"other"`` and ``"errors"``.

    Raises what :func:`check` raises (a ``dims`` name the model's inputs lack is a LoadError).
    """
    import json

    path, data, name = _source(model)
    report: Dict[str, Any] = json.loads(_onnx_lint.dims(path, data, name, _dims(dims)))
    return report


#: The path of the main graph (the library names it so; subgraphs are paths under it).
_MAIN = "main"


def _rewrite(run: Any, model: ModelLike, output: Union[None, str, "os.PathLike[str]"], **kwargs: Any) -> Any:
    path, data, name = _source(model)
    if path is not None and output is None:
        raise ValueError("output= is required when the model is a path (the file to write)")
    if path is None and output is not None:
        raise ValueError("output= is only for a model given as a path; bytes and ModelProto are returned")
    out = None if output is None else os.fsdecode(os.fspath(output))
    try:
        result = run(path, data, name, out, **kwargs)
    except _onnx_lint.ModelRefused as e:
        raise ModelHasErrors(Report(e.args[0], name)) from None
    if path is not None:
        return None
    if isinstance(model, (bytes, bytearray, memoryview)):
        return result
    rewritten = type(model)()
    rewritten.ParseFromString(result)
    return rewritten


def expand(
    model: ModelLike,
    *,
    output: Union[None, str, "os.PathLike[str]"] = None,
    keep_scalars: bool = False,
    force_explicit: bool = False,
    in_place: bool = False,
) -> Any:
    """Make every implicit broadcast an explicit Expand node, as ``onnx-lint expand`` does.

    The result is of the argument's kind: bytes (also for bytearray/memoryview) for bytes, a new
    message of the same class for a ``ModelProto``. For a path, ``output`` is required: the model is
    written there atomically (its external-data files carried beside it, as the command does) and
    None is returned; ``in_place=True`` allows ``output`` to be the input.

    Inputs onnxruntime would compute with other code are left implicit unless ``force_explicit``
    (see the README); ``keep_scalars`` leaves scalars and one-element tensors implicit.

    Raises:
        ModelHasErrors: the model has errors; nothing is written (``.report`` lists them).
        ValueError: the broadcasts cannot be made explicit (e.g. a symbolic broadcast before opset 6).
        LoadError, OSError, TypeError: as :func:`check`; OSError also when the output cannot be
            written (or would overwrite the input or its data).
    """
    return _rewrite(
        _onnx_lint.expand,
        model,
        output,
        keep_scalars=keep_scalars,
        force_explicit=force_explicit,
        in_place=in_place,
    )


def fold(model: ModelLike, *, output: Union[None, str, "os.PathLike[str]"] = None, in_place: bool = False) -> Any:
    """Remove the Expand nodes that implicit broadcasting makes redundant (the inverse of
    :func:`expand`), as ``onnx-lint fold`` does: ``Add(Expand(a [1, 4], [3, 4]), b [3, 4])`` becomes
    ``Add(a, b)``; an Expand whose effect the shapes cannot rule out stays.

    The result is of the argument's kind (bytes for bytes, a new ``ModelProto`` for a ``ModelProto``);
    for a path, ``output`` is required and the model is written there (atomically, external data
    carried) and None is returned. ``fold(expand(m))`` gives back ``m``.

    Raises:
        ModelHasErrors: the model has errors; nothing is written (``.report`` lists them).
        LoadError, OSError, TypeError: as :func:`expand`.
    """
    return _rewrite(_onnx_lint.fold, model, output, in_place=in_place)


def annotate(
    model: ModelLike,
    *,
    output: Union[None, str, "os.PathLike[str]"] = None,
    expressions: bool = True,
    outputs_too: bool = False,
    strip: bool = False,
    force: bool = False,
    in_place: bool = False,
) -> Any:
    """Write the inferred type of every value a node computes into the model's ``value_info``, as
    ``onnx-lint annotate`` does: everything else is kept byte for byte, entries already there are
    refined and never contradicted (one that contradicts inference is left as it is: ``check``
    reports it as T004).

    The result is of the argument's kind (bytes for bytes, a new ``ModelProto`` for a
    ``ModelProto``); for a path, ``output`` is required and the model is written there (atomically,
    external data carried) and None is returned.

    A symbolic size is written as a ``dim_param``: its symbol, or an expression's text
    (``floor((H - 1)/32) + 1``); with ``expressions=False`` an expression is named ``unk__N`` as
    onnxruntime names them. ``outputs_too`` also fills the graph outputs' declared types;
    ``strip`` removes every ``value_info`` entry instead (the inverse); ``force`` annotates a model
    with errors too.

    Raises:
        ModelHasErrors: the model has errors and ``force`` is false; nothing is written.
        LoadError, OSError, TypeError: as :func:`expand`.
    """
    return _rewrite(
        _onnx_lint.annotate,
        model,
        output,
        expressions=expressions,
        outputs_too=outputs_too,
        strip=strip,
        force=force,
        in_place=in_place,
    )
