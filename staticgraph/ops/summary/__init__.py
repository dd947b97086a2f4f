"""summary: ops that build TensorBoard ``Summary`` protobufs (scalar, histogram, image,
text, audio, merge), with the protobuf encoding they share (``encode``)."""

from . import summary_ops

MODULES = (summary_ops,)
