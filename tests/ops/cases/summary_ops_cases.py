"""Cases for the summary ops: each check parses the serialized ``Summary`` proto."""

import struct

import numpy as np

import staticgraph as tf

from . import Case, rng

R = rng(7)
S = np.float32(2.5)
V = R.standard_normal((3, 4)).astype(np.float32)
IV = R.integers(-9, 9, (5,)).astype(np.int32)
IMG_U8 = R.integers(0, 256, (2, 3, 4, 3)).astype(np.uint8)
IMG_F = R.random((1, 2, 2, 1)).astype(np.float32)
TXT = np.array([b"hello", b"world"], dtype=object)


def _parse(out):
    from tensorboard.compat.proto import summary_pb2   # the dev extra installs tensorboard
    return summary_pb2.Summary.FromString(bytes(np.asarray(out, dtype=object).ravel()[0]))


def _vec(summary):
    """The summary as a 1-element vector: a fetched string scalar comes back as ``bytes``,
    which the generic dtype check would read as numpy ``S``, not ``object``."""
    return tf.reshape(summary, [1])


def _check_scalar(tag, want):
    def check(out, inputs):
        s = _parse(out)
        assert [v.tag for v in s.value] == [tag]
        assert s.value[0].simple_value == np.float32(want(*inputs))
    return check


def _check_hist(out, inputs):
    (v,) = _parse(out).value
    x = inputs[0].astype(np.float64).ravel()
    h = v.histo
    assert v.tag == "h" and h.num == x.size and sum(h.bucket) == x.size
    assert h.min == x.min() and h.max == x.max()
    assert np.isclose(h.sum, x.sum()) and np.isclose(h.sum_squares, (x * x).sum())
    limits = np.array(h.bucket_limit)
    assert np.all(np.diff(limits) > 0)
    for value in x:                      # each value is counted under the first limit above it
        i = np.searchsorted(limits, value, side="right")
        assert h.bucket[i] >= 1


def _check_images(out, inputs):
    from staticgraph.ops.summary.encode import decode_png
    s = _parse(out)
    assert [v.tag for v in s.value] == ["img/image/0", "img/image/1"]
    for i, v in enumerate(s.value):
        assert (v.image.height, v.image.width, v.image.colorspace) == (3, 4, 3)
        np.testing.assert_array_equal(decode_png(v.image.encoded_image_string), inputs[0][i])


def _check_float_image(out, inputs):
    from staticgraph.ops.summary.encode import decode_png
    (v,) = _parse(out).value
    assert v.tag == "gray/image"
    x = inputs[0][0]
    want = (x * np.float32(255.0 / x.max())).astype(np.uint8)   # TF1: largest value to 255
    np.testing.assert_array_equal(decode_png(v.image.encoded_image_string), want)


def _check_text(out, inputs):
    (v,) = _parse(out).value
    assert v.tag == "t" and v.metadata.plugin_data.plugin_name == "text"
    assert list(v.tensor.string_val) == list(inputs[0])
    assert [d.size for d in v.tensor.tensor_shape.dim] == [2]


def _check_tensor(out, inputs):
    (v,) = _parse(out).value
    assert v.tag == "w" and v.tensor.dtype == 1       # DT_FLOAT
    got = np.frombuffer(v.tensor.tensor_content, "<f4").reshape(
        [d.size for d in v.tensor.tensor_shape.dim])
    np.testing.assert_array_equal(got, inputs[0])


def _field(number, payload):
    """A length-delimited protobuf field (payloads under 128 bytes)."""
    return bytes([number << 3 | 2, len(payload)]) + payload


def _summary_bytes(tag, value=None, count=None):
    """A serialized one-value ``Summary``, encoded by hand from the protobuf wire format:
    ``Summary.value`` is field 1; in a value ``tag`` is field 1, ``simple_value`` field 2
    (float) and ``histo`` field 5, a ``HistogramProto`` whose ``num`` is field 3 (double)."""
    item = _field(1, tag.encode())
    if value is not None:
        item += b"\x15" + struct.pack("<f", value)
    else:
        item += _field(5, b"\x19" + struct.pack("<d", count))
    return _field(1, item)


# Serialized summaries fed to MergeSummary, so that it is the graph's only summary op
# (its ONNX export must fail naming MergeSummary, not a summary op feeding it).
FED = [np.array(b, dtype=object) for b in (_summary_bytes("a", 2.5), _summary_bytes("b", -3.0),
                                           _summary_bytes("c", count=7))]


def _check_merge(out, inputs):
    s = _parse(out)
    assert [v.tag for v in s.value] == ["a", "b", "c"]
    assert [v.simple_value for v in s.value[:2]] == [np.float32(2.5), np.float32(-3.0)]
    assert s.value[2].HasField("histo") and s.value[2].histo.num == 7


CASES = [
    Case("ScalarSummary", lambda x: _vec(tf.summary.scalar("loss", x)), [S], check=_check_scalar(
        "loss", lambda x: x), bad=[[(2,)]], bad_dtypes=[[np.bool_]]),
    Case("ScalarSummary", lambda x: _vec(tf.summary.scalar("m", tf.reduce_mean(x))), [V],
         check=_check_scalar("m", lambda x: x.mean()), id="reduced"),
    Case("HistogramSummary", lambda x: _vec(tf.summary.histogram("h", x)), [V], check=_check_hist),
    Case("HistogramSummary", lambda x: _vec(tf.summary.histogram("h", x)), [IV], check=_check_hist,
         id="int"),
    Case("ImageSummary", lambda x: _vec(tf.summary.image("img", x)), [IMG_U8], check=_check_images,
         bad=[[(2, 3, 4)], [(2, 3, 4, 2)]], bad_dtypes=[[np.int32]]),
    Case("ImageSummary", lambda x: _vec(tf.summary.image("gray", x, max_outputs=1)), [IMG_F],
         check=_check_float_image, id="float"),
    Case("TensorSummaryV2", lambda x: _vec(tf.summary.text("t", x)), [TXT], check=_check_text),
    Case("TensorSummaryV2", lambda x: _vec(tf.summary.tensor_summary("w", x)), [V],
         check=_check_tensor, id="tensor"),
    Case("MergeSummary", lambda a, b, c: _vec(tf.summary.merge([a, b, c])), FED,
         check=_check_merge),
]
