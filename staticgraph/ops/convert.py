"""Turning Python values, numpy arrays and variables into tensors (TF1's rules).

Python floats become float32 and ints int32 (int64 when too large), numpy arrays
keep their dtype. Other types convert through functions registered with
:func:`register_tensor_conversion_function`: nested lists that contain tensors are
packed with ``tf.stack`` by the function :mod:`.array.combine` registers (TF1's
"autopacking", registered by ``array_ops``).
"""

from __future__ import annotations

import builtins
import numbers

import numpy as np

from ..graphlib import Tensor, TensorShape, as_dtype, capture_user_frame, dtypes, format_frame
from ..graphlib.dtypes import DType
from ..graphlib.user_frame import declaration_message
from ..graphlib.op_def import get_op_def
from . import apply as _apply

__all__ = ["convert_to_tensor", "convert_n_to_tensor", "constant", "to_numpy_constant",
           "register_tensor_conversion_function", "convert_same_dtype", "is_tensor_like",
           "contains_tensor"]

_CONVERSIONS = []


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Teach :func:`convert_to_tensor` a new type: ``conversion_func(value, dtype, name)``.

    Args:
        base_type: a type or tuple of types whose instances ``conversion_func`` converts.
        conversion_func: returns a tensor (or a value :func:`convert_to_tensor` accepts),
            or ``NotImplemented`` to leave ``value`` to the next function (TF1's rule).
        priority: functions of lower priority are tried first.
    """
    global _FAST_SCALARS
    _CONVERSIONS.append((priority, base_type, conversion_func))
    _CONVERSIONS.sort(key=lambda t: t[0])
    _FAST_SCALARS = frozenset(t for t in _FAST_SCALARS if not issubclass(t, base_type))


# Python scalars are the most common constants (``y * 1.0001``): they take a direct
# path to a 0-d array with exactly the dtype and checks of the general rules below.
# A type leaves this set when a conversion function is registered for it.
_SCALAR_TYPES = frozenset({float, int, builtins.bool})
_FAST_SCALARS = _SCALAR_TYPES
_INT32_MIN, _INT32_MAX = -2**31, 2**31 - 1


def _fast_targets():
    """``(python type, id(DType))`` -> (numpy dtype, integer range or None) allowed directly."""
    out = {}
    for d in dtypes.ALL_DTYPES:
        bounds = None
        if d.is_integer:
            info = np.iinfo(d.np_dtype)
            bounds = (int(info.min), int(info.max))
        if d.is_floating:
            out[(float, id(d))] = (d, None)
        if d.is_numeric:
            out[(int, id(d))] = (d, bounds)
        if d.is_bool or d.is_numeric:
            out[(builtins.bool, id(d))] = (d, None)
    return out


_FAST_TARGETS = _fast_targets()


def _scalar_constant(value, kind, dtype):
    """``(read-only 0-d array, DType)`` for a Python scalar, or None for the general path."""
    if dtype is None:
        if kind is float:
            dtype = dtypes.float32
        elif kind is int:
            if not _INT32_MIN <= value <= _INT32_MAX:
                return None
            dtype = dtypes.int32
        else:
            dtype = dtypes.bool
    else:
        if type(dtype) is not DType:
            return None
        target = _FAST_TARGETS.get((kind, id(dtype)))
        if target is None:
            return None  # a refused combination: the general path raises TF1's error
        dtype, bounds = target
        if bounds is not None and not bounds[0] <= value <= bounds[1]:
            return None
    arr = np.array(value, dtype=dtype.np_dtype)
    arr.flags.writeable = False
    return arr, dtype


def is_tensor_like(value) -> bool:
    """True for a Tensor or an object that stands for one (a Variable: ``_as_graph_tensor``)."""
    return isinstance(value, Tensor) or hasattr(value, "_as_graph_tensor")


def contains_tensor(value) -> bool:
    """True when ``value`` is tensor-like or a (nested) list or tuple holding one."""
    if is_tensor_like(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(contains_tensor(v) for v in value)
    return False


def _python_kind(value):
    """The broadest Python scalar kind in a nested list: bool < int < float, or None."""
    kinds = set()

    def walk(v):
        if isinstance(v, (list, tuple)):
            for item in v:
                walk(item)
        elif isinstance(v, (builtins.bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(v, numbers.Integral):
            kinds.add("int")
        elif isinstance(v, numbers.Real):
            kinds.add("float")
        elif isinstance(v, (str, bytes)):
            kinds.add("str")
        else:
            kinds.add("other")

    walk(value)
    for k in ("other", "str", "float", "int", "bool"):
        if k in kinds:
            return k
    return None


def to_numpy_constant(value, dtype=None) -> np.ndarray:
    """``value`` as a numpy array of the dtype TF1 would give it.

    Raises:
        TypeError: for values of a kind ``dtype`` cannot hold (``2.5`` as int32).
    """
    dtype = as_dtype(dtype) if dtype is not None else None
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        arr = np.asarray(value)
        if dtype is None:
            if arr.dtype.kind in "SUO":
                return arr.astype(object)
            return arr
        return arr.astype(dtype.np_dtype)
    kind = _python_kind(value)
    if kind == "other":
        raise TypeError(f"Failed to convert object of type {type(value).__name__} to Tensor. "
                        f"Contents: {value!r}. Consider casting elements to a supported type.")
    if dtype is None:
        if kind == "str":
            return np.asarray(value, dtype=object)
        if kind == "float":
            return np.asarray(value, dtype=np.float32)
        if kind == "bool":
            return np.asarray(value, dtype=np.bool_)
        if kind is None:  # empty list
            return np.asarray(value, dtype=np.float32)
        arr = np.asarray(value, dtype=np.int64)
        if arr.size and (arr.max() > 2**31 - 1 or arr.min() < -2**31):
            return arr
        return arr.astype(np.int32)
    ok = {
        None: True,
        "bool": dtype.is_bool or dtype.is_numeric,
        "int": dtype.is_numeric,
        "float": dtype.is_floating,
        "str": dtype is dtypes.string,
    }[kind]
    if not ok:
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type "
                        f"'{type(value).__name__}' instead.")
    arr = np.asarray(value)
    if dtype.is_integer and arr.size:
        info = np.iinfo(dtype.np_dtype)
        if arr.max() > info.max or arr.min() < info.min:
            raise TypeError(f"Value {value!r} is out of range for {dtype.name}.")
    return np.asarray(value, dtype=dtype.np_dtype)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A constant tensor holding ``value``.

    Args:
        value: a Python scalar or nested list, or a numpy array.
        dtype: the element type; inferred from ``value`` when None.
        shape: optional shape; a single value fills it, an equal count is reshaped.
        name: op name.
        verify_shape: if True, ``value``'s shape must equal ``shape``.

    Raises:
        TypeError: for a value ``dtype`` cannot hold.
        ValueError: for a ``shape`` the value cannot take.
    """
    if shape is None and type(value) in _SCALAR_TYPES:
        fast = _scalar_constant(value, type(value), dtype)
        if fast is not None:
            return _apply.apply_op("Const", [], {"value": fast[0], "dtype": fast[1]}, name=name)
    arr = to_numpy_constant(value, dtype)
    if shape is not None:
        shape = [int(d) for d in TensorShape(shape).as_list()]
        if verify_shape and list(arr.shape) != shape:
            raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {arr.shape}.")
        needed = int(np.prod(shape))
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == needed:
            arr = arr.reshape(shape)
        elif 0 < arr.size < needed:
            # TF1: the last element fills the remaining entries.
            flat = arr.reshape(-1)
            arr = np.concatenate([flat, np.repeat(flat[-1:], needed - flat.size)])
            arr = arr.reshape(shape)
        else:
            raise ValueError(f"Too many elements provided. Needed at most {needed}, but "
                             f"received {arr.size}" if arr.size > needed else
                             f"Expected {needed} elements for shape {shape}, got {arr.size}")
    arr = np.array(arr, copy=True)
    arr.flags.writeable = False
    return _apply.apply_op("Const", [], {"value": arr, "dtype": as_dtype(arr.dtype)}, name=name)


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """Convert ``value`` (Tensor, Variable, array, Python value) to a Tensor.

    Args:
        value: the object to convert.
        dtype: required dtype; a Tensor of another dtype raises ValueError.
        name: name for a newly created constant.
        preferred_dtype / dtype_hint: dtype to use when it fits, else inferred.

    Raises:
        ValueError: a tensor of the wrong dtype was given.
        TypeError: the value cannot become a tensor.
    """
    if type(value) is Tensor and dtype is None:
        return value
    if type(value) in _FAST_SCALARS and preferred_dtype is None and dtype_hint is None:
        return constant(value, dtype=dtype, name=name or "Const")
    preferred_dtype = preferred_dtype or dtype_hint
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype is not as_dtype(dtype):
            raise ValueError(f"Tensor conversion requested dtype {as_dtype(dtype).name} for "
                             f"Tensor with dtype {value.dtype.name}: {value!r}")
        return value
    as_tensor = getattr(value, "_as_graph_tensor", None)
    if as_tensor is not None:
        return convert_to_tensor(as_tensor(), dtype=dtype)
    for _, base, fn in _CONVERSIONS:
        if isinstance(value, base):
            converted = fn(value, dtype, name)
            if converted is not NotImplemented:
                return convert_to_tensor(converted, dtype=dtype)
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    """Convert each of ``values`` with :func:`convert_to_tensor`."""
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype) for v in values]


def convert_same_dtype(*values, names=("x", "y", "z"), op_type=None, name=None):
    """Convert op inputs that share one type attribute, as TF1's op wrappers do.

    The first tensor among ``values`` fixes the dtype; Python values and arrays are
    converted to it. Tensors of another dtype raise TypeError naming the argument.

    Args:
        *values: the inputs (tensors, variables, Python values, arrays).
        names: the inputs' argument names, for messages.
        op_type: the type of the op the inputs are for (``"Add"``): messages then
            read as TF1's ("Input 'y' of 'Add' Op has type float32 that does not
            match type int32 of argument 'x'.") and name the op, its would-be name
            and input shapes, like any declaration error.
        name: the op's ``name`` argument (a scope ending in ``/`` is used as is).

    Raises:
        TypeError: a tensor's dtype differs from the first tensor's, or a Python
            value cannot take that dtype; the message ends with the user's
            ``file:line``.
    """
    if values and type(values[0]) is Tensor:  # the usual case: tensors of one dtype
        anchor = values[0].dtype
        for v in values:
            if type(v) is not Tensor or v.dtype is not anchor:
                break
        else:
            return list(values)
    anchor, anchor_at = None, 0
    for i, v in enumerate(values):
        if is_tensor_like(v):
            anchor, anchor_at = convert_to_tensor(v).dtype, i
            break
    out = []
    for i, v in enumerate(values):
        if is_tensor_like(v):
            t = convert_to_tensor(v)
            if anchor is not None and t.dtype is not anchor:
                raise _declaration_type_error(
                    f"Input '{_arg_name(names, i)}'{_of_op(op_type)} has type {t.dtype.name} "
                    f"that does not match type {anchor.name} of argument "
                    f"'{_arg_name(names, anchor_at)}'", values, op_type, name)
            out.append(t)
        elif anchor is not None:
            try:
                out.append(convert_to_tensor(v, dtype=anchor))
            except (TypeError, ValueError) as exc:
                text = repr(v)
                if len(text) > 60:
                    text = text[:60] + "..."
                raise _declaration_type_error(
                    f"Expected {anchor.name} passed to parameter '{_arg_name(names, i)}'"
                    f"{_of_op(op_type, 'op')}, got {text} of type '{type(v).__name__}' "
                    f"instead. Error: {str(exc).rstrip('.')}", values, op_type, name) from None
        else:
            t = convert_to_tensor(v)
            anchor = t.dtype
            out.append(t)
    return out


def _arg_name(names, i):
    return names[i] if i < len(names) else f"input {i}"


def _of_op(op_type, word="Op"):
    """`` of 'Add' Op`` (TF1's wording), or nothing when the op type is not known."""
    if op_type is None:
        return ""
    return f" of '{op_type}' Op" if word == "Op" else f" of op '{op_type}'"


def _declaration_type_error(message, values, op_type, name):
    """A TypeError for inputs of an op that could not be declared, worded like every
    declaration error (the graph's own formatter): the op's would-be name and type,
    its input shapes and the user's ``file:line``."""
    frame = capture_user_frame()
    tensors = [v for v in values if isinstance(v, Tensor)]
    if op_type is None or not tensors:
        return TypeError(f"{message}. Declared at {format_frame(frame)}.")
    try:
        default = get_op_def(op_type).default_name
    except KeyError:
        default = None
    wanted = name or default or op_type
    if wanted.endswith("/"):                 # a name scope, used as the op's name
        full = wanted[:-1]
    else:
        full = tensors[0].graph.unique_name(wanted, mark_as_used=False)
    return TypeError(declaration_message(message, full, op_type, tensors, frame))
