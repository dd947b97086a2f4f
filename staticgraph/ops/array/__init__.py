"""array: ops that create, reshape, combine, slice, gather, scatter and select arrays,
with the argument parsers they share (``shape_args``, ``index_args``) and their ONNX
lowering helpers (``*_onnx``)."""

from . import combine, fill, gather, scatter, select, shape, slicing, transform

MODULES = (shape, fill, transform, combine, slicing, gather, scatter, select)
