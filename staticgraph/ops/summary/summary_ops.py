"""Summary ops: serialized ``Summary`` protos for TensorBoard (TF1's ``tf.summary``).

Each op outputs one string scalar, a serialized ``tensorflow.Summary`` that a
:class:`staticgraph.summary.FileWriter` writes to an event file::

    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", w)
    merged = tf.summary.merge_all()
    summary, _ = sess.run([merged, train])
    writer.add_summary(summary, step)

The kernels build the protos with the ``tensorboard`` package's protobuf classes,
imported when a summary op first runs (``pip install staticgraph[tensorboard]``).
Declaring summary ops needs no protobuf. Names and tags follow TF1: the op is named
after the (scoped, made unique) summary name, which is also its tag.
"""

from __future__ import annotations

import contextlib
import re

import numpy as np

from ...errors import InvalidArgumentError
from ...graphlib import dtypes
from ...graphlib.default_graph import add_to_collection, get_collection, name_scope
from ...graphlib.graph import GraphKeys
from ..convert import constant, convert_to_tensor
from .encode import (encode_png, histogram_fields, normalize_image, plugin_metadata_bytes,
                     require_protos, tensor_proto)
from ...graphlib.op_def import OpDef, Spec, register
from ..apply import apply_op
from ..shape_rules import NUMERIC, require_dtype

__all__ = ["scalar", "histogram", "image", "text", "tensor_summary", "merge", "merge_all"]

_REAL = NUMERIC
_IMAGE_DTYPES = (dtypes.uint8, dtypes.float16, dtypes.float32, dtypes.float64)
_STRING = (dtypes.string,)


def _text(item) -> str:
    if isinstance(item, (bytes, np.bytes_)):
        return bytes(item).decode("utf-8", "replace")
    return str(item)


def _scalar_tag(tag, op_type) -> str:
    tag = np.asarray(tag)
    if tag.shape != ():
        raise InvalidArgumentError(None, None, f"{op_type}: tag must be a scalar, got shape "
                                   f"{list(tag.shape)}")
    return _text(tag.item())


def _string_scalar(proto) -> np.ndarray:
    return np.array(proto.SerializeToString(), dtype=object)


# Summary ops are for TensorBoard logging while training, not part of a served model.
_NO_ONNX = ("it builds a serialized tensorflow.Summary protocol buffer (a string), which "
            "no ONNX operator can produce; export the tensors it summarizes instead")


def _require_scalar_tag(tag, arg="tag"):
    require_dtype(tag, _STRING, arg)
    if tag.shape.rank not in (None, 0):
        raise ValueError(f"{arg} must be a scalar, got shape {tag.shape}")


# ------------------------------------------------------------------------ op types
@register
class ScalarSummary(OpDef):
    """A ``Summary`` with one ``simple_value`` per element of ``values`` (tags alike)."""

    differentiable = False
    onnx_unsupported = _NO_ONNX

    def infer(self, tags, values):
        require_dtype(tags, _STRING, "tags")
        require_dtype(values, _REAL, "values")
        if not tags.shape.is_compatible_with(values.shape):
            raise ValueError(f"tags and values not the same shape: {tags.shape} != "
                             f"{values.shape}")
        return Spec(dtypes.string, [])

    @staticmethod
    def compute(tags, values):
        tags, values = np.asarray(tags), np.asarray(values)
        if tags.shape != values.shape:
            raise InvalidArgumentError(None, None, f"tags and values not the same shape: "
                                       f"{list(tags.shape)} != {list(values.shape)}")
        summary = require_protos().summary_pb2.Summary()
        for tag, value in zip(tags.ravel(), values.ravel()):
            summary.value.add(tag=_text(tag), simple_value=float(value))
        return _string_scalar(summary)


@register
class HistogramSummary(OpDef):
    """A ``Summary`` with a ``HistogramProto`` of ``values`` (TF1's default buckets)."""

    differentiable = False
    onnx_unsupported = _NO_ONNX

    def infer(self, tag, values):
        _require_scalar_tag(tag)
        require_dtype(values, _REAL, "values")
        return Spec(dtypes.string, [])

    @staticmethod
    def compute(tag, values):
        name = _scalar_tag(tag, "HistogramSummary")
        values = np.asarray(values)
        if values.dtype.kind == "f" and not np.isfinite(values).all():
            raise InvalidArgumentError(None, None, f"Nan in summary histogram for: {name}")
        summary_pb2 = require_protos().summary_pb2
        summary = summary_pb2.Summary()
        summary.value.add(tag=name).histo.CopyFrom(
            summary_pb2.HistogramProto(**histogram_fields(values)))
        return _string_scalar(summary)


@register
class ImageSummary(OpDef):
    """A ``Summary`` with up to ``max_images`` PNG images of a ``[batch, h, w, 1|3|4]`` tensor.

    uint8 images are written as they are; float images are scaled per image (TF1):
    non-negative ones so the largest value is 255, others so 0 lands on 128.
    Non-finite pixels get ``bad_color`` (RGBA).
    """

    differentiable = False
    onnx_unsupported = _NO_ONNX
    attrs = {"max_images": 3, "bad_color": (255, 0, 0, 255)}

    def infer(self, tag, tensor, max_images, bad_color):
        _require_scalar_tag(tag)
        require_dtype(tensor, _IMAGE_DTYPES, "tensor")
        shape = tensor.shape.raw
        if shape is not None and (len(shape) != 4 or shape[3] not in (None, 1, 3, 4)):
            raise ValueError(f"Tensor must be 4-D with last dim 1, 3, or 4, not {tensor.shape}")
        if max_images < 1:
            raise ValueError(f"max_images must be at least 1, got {max_images}")
        return Spec(dtypes.string, [])

    @staticmethod
    def compute(tag, tensor, max_images, bad_color):
        name = _scalar_tag(tag, "ImageSummary")
        tensor = np.asarray(tensor)
        if tensor.ndim != 4 or tensor.shape[3] not in (1, 3, 4):
            raise InvalidArgumentError(None, None, f"Tensor must be 4-D with last dim 1, 3, or "
                                       f"4, not {list(tensor.shape)}")
        _, height, width, depth = tensor.shape
        summary = require_protos().summary_pb2.Summary()
        for i in range(min(max_images, tensor.shape[0])):
            pixels = tensor[i]
            if pixels.dtype != np.uint8:
                pixels = normalize_image(pixels, bad_color)
            value = summary.value.add(tag=f"{name}/image/{i}" if max_images > 1
                                      else f"{name}/image")
            value.image.height, value.image.width, value.image.colorspace = height, width, depth
            value.image.encoded_image_string = encode_png(pixels)
        return _string_scalar(summary)


@register
class TensorSummaryV2(OpDef):
    """A ``Summary`` holding ``tensor`` as a ``TensorProto``, with plugin metadata."""

    differentiable = False
    onnx_unsupported = _NO_ONNX

    def infer(self, tag, tensor, serialized_summary_metadata):
        _require_scalar_tag(tag)
        _require_scalar_tag(serialized_summary_metadata, "serialized_summary_metadata")
        return Spec(dtypes.string, [])

    @staticmethod
    def compute(tag, tensor, serialized_summary_metadata):
        protos = require_protos()
        metadata = np.asarray(serialized_summary_metadata).item()
        summary = protos.summary_pb2.Summary()
        value = summary.value.add(tag=_scalar_tag(tag, "TensorSummaryV2"))
        value.metadata.ParseFromString(metadata.encode("utf-8") if isinstance(metadata, str)
                                       else bytes(metadata))
        value.tensor.CopyFrom(tensor_proto(tensor))
        return _string_scalar(summary)


@register
class MergeSummary(OpDef):
    """The union of serialized ``Summary`` protos; a tag seen twice is an error (TF1)."""

    differentiable = False
    onnx_unsupported = _NO_ONNX

    def infer(self, *inputs):
        if not inputs:
            raise ValueError("MergeSummary needs at least one input")
        for i, t in enumerate(inputs):
            require_dtype(t, _STRING, f"inputs[{i}]")
        return Spec(dtypes.string, [])

    @staticmethod
    def compute(*inputs):
        summary_pb2 = require_protos().summary_pb2
        merged, seen = summary_pb2.Summary(), set()
        for value in inputs:
            for item in np.asarray(value, dtype=object).ravel():
                part = summary_pb2.Summary()
                try:
                    part.ParseFromString(item.encode("utf-8") if isinstance(item, str)
                                         else bytes(item))
                except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
                    raise InvalidArgumentError(
                        None, None, "Could not parse one of the summary inputs") from None
                for v in part.value:
                    if v.tag and v.tag in seen:
                        raise InvalidArgumentError(
                            None, None, f"Duplicate tag {v.tag} found in summary inputs")
                    seen.add(v.tag)
                    merged.value.add().CopyFrom(v)
        return _string_scalar(merged)


# ------------------------------------------------------------------ public functions
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    """TF1's tag cleaning: characters outside ``[-/\\w.]`` become ``_``; no leading ``/``."""
    if name is None:
        return None
    return _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")


@contextlib.contextmanager
def _summary_scope(name, family=None, default_name=None, values=None):
    """TF1's summary scope: yields ``(tag, scope)``; the family prefixes both."""
    name, family = _clean_tag(name), _clean_tag(family)
    base = name if family is None else f"{family}/{name}"
    with name_scope(base, default_name, values=values) as scope:
        tag = scope.rstrip("/") if family is None else f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _collect(value, collections, default):
    for key in (default if collections is None else collections):
        add_to_collection(key, value)


def scalar(name, tensor, collections=None, family=None):
    """A summary op holding one real number (TF1's ``tf.summary.scalar``).

    Args:
        name: the summary's name; with the enclosing name scope it is the tag.
        tensor: a real numeric scalar tensor.
        collections: collection keys to add the op to (default ``[GraphKeys.SUMMARIES]``).
        family: optional prefix of the tag and name, a TensorBoard tab.

    Returns:
        A string scalar tensor: the serialized ``Summary``.

    Raises:
        TypeError: ``tensor`` is not real numeric. ValueError: ``tensor`` is not a scalar.

    Example: ``tf.summary.scalar("loss", loss)``.
    """
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        tensor = convert_to_tensor(tensor)
        val = apply_op("ScalarSummary", [constant(tag, name="tags"), tensor], name=scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def histogram(name, values, collections=None, family=None):
    """A summary op holding a histogram of ``values`` (TF1's ``tf.summary.histogram``).

    Args:
        name: the summary's name (tag, with the enclosing name scope).
        values: a real numeric tensor of any shape; all values must be finite when run.
        collections: collection keys (default ``[GraphKeys.SUMMARIES]``).
        family: optional tag prefix.

    Returns:
        A string scalar tensor: the serialized ``Summary``.

    Raises:
        errors.InvalidArgumentError: at run time, for NaN or infinite values.
    """
    with _summary_scope(name, family, values=[values]) as (tag, scope):
        values = convert_to_tensor(values)
        val = apply_op("HistogramSummary", [constant(tag, name="tag"), values], name=scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """A summary op holding up to ``max_outputs`` images as PNG (TF1's ``tf.summary.image``).

    Args:
        name: the summary's name; images are tagged ``name/image/0``, ... (or
            ``name/image`` when ``max_outputs`` is 1).
        tensor: ``[batch, height, width, channels]`` uint8 or float, channels 1, 3 or 4.
            Floats are scaled per image (non-negative: largest value to 255).
        max_outputs: the most images written from the batch.
        collections: collection keys (default ``[GraphKeys.SUMMARIES]``).
        family: optional tag prefix.

    Returns:
        A string scalar tensor: the serialized ``Summary``.

    Raises:
        ValueError: ``tensor`` is not 4-D with 1, 3 or 4 channels. TypeError: bad dtype.
    """
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        tensor = convert_to_tensor(tensor)
        val = apply_op("ImageSummary", [constant(tag, name="tag"), tensor],
                       {"max_images": int(max_outputs)}, name=scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def tensor_summary(name, tensor, summary_description=None, collections=None,
                   summary_metadata=None, family=None, display_name=None):
    """A summary op holding ``tensor`` itself (TF1's ``tf.summary.tensor_summary``).

    Args:
        name: the summary's name (tag, with the enclosing name scope).
        tensor: a tensor of any dtype and shape.
        summary_description: optional description stored in the metadata.
        collections: collection keys (default ``[GraphKeys.SUMMARIES]``).
        summary_metadata: optional ``SummaryMetadata`` proto (or its serialized bytes).
        family: optional tag prefix.
        display_name: optional display name stored in the metadata.

    Returns:
        A string scalar tensor: the serialized ``Summary``.
    """
    if summary_metadata is None:
        metadata = plugin_metadata_bytes(display_name=display_name or "",
                                         description=summary_description or "")
    elif isinstance(summary_metadata, (bytes, bytearray)):
        metadata = bytes(summary_metadata)
    else:
        if summary_description is not None:
            summary_metadata.summary_description = summary_description
        if display_name is not None:
            summary_metadata.display_name = display_name
        metadata = summary_metadata.SerializeToString()
    with _summary_scope(name, family, values=[tensor]) as (tag, scope):
        tensor = convert_to_tensor(tensor)
        val = apply_op("TensorSummaryV2",
                       [constant(tag, name="tag"), tensor,
                        constant(np.array(metadata, dtype=object),
                                 name="serialized_summary_metadata")], name=scope)
    _collect(val, collections, [GraphKeys.SUMMARIES])
    return val


def text(name, tensor, collections=None):
    """A summary op holding string(s) for TensorBoard's text tab (TF1's ``tf.summary.text``).

    Args:
        name: the summary's name (tag, with the enclosing name scope).
        tensor: a string tensor (scalar, vector or matrix; Markdown is rendered).
        collections: collection keys (default ``[GraphKeys.SUMMARIES]``).

    Returns:
        A string scalar tensor: the serialized ``Summary``.

    Raises:
        ValueError: ``tensor`` is not a string tensor.
    """
    tensor = convert_to_tensor(tensor)
    if tensor.dtype is not dtypes.string:
        raise ValueError(f"Expected tensor {tensor.name} to have dtype string, got "
                         f"{tensor.dtype.name}")
    return tensor_summary(name, tensor, collections=collections,
                          summary_metadata=plugin_metadata_bytes("text"))


def merge(inputs, collections=None, name=None):
    """One summary op merging serialized summaries (TF1's ``tf.summary.merge``).

    Args:
        inputs: a list of string tensors holding serialized ``Summary`` protos.
        collections: collection keys to add the result to (default: none).
        name: op name (default ``Merge/MergeSummary``).

    Returns:
        A string scalar tensor: the merged ``Summary``.

    Raises:
        errors.InvalidArgumentError: at run time, when two inputs share a tag.
    """
    inputs = list(inputs)
    with name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", [convert_to_tensor(t) for t in inputs],
                       name=name or "MergeSummary")
    _collect(val, collections, [])
    return val


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Merge every summary in collection ``key`` (TF1's ``tf.summary.merge_all``).

    Returns:
        The merged summary tensor, or None when the collection is empty.
    """
    summaries = get_collection(key, scope=scope)
    if not summaries:
        return None
    return merge(summaries, name=name)
