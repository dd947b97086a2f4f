"""staticgraph: a static computation-graph framework in the TensorFlow 1.x tradition.

Declare placeholders, variables and ops into a graph, then run any part of it in a
``Session``. The public API keeps TF1's names, so ``import staticgraph as tf``
runs a TF1 graph-mode program::

    import staticgraph as tf
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y = tf.reduce_sum(x * 2.0 + 1.0, axis=1)
    with tf.Session() as sess:
        print(sess.run(y, feed_dict={x: [[1, 2, 3]]}))
"""

from . import errors, graphlib, ops
from .not_provided import missing_attribute as _missing_attribute
from .graphlib import dtypes
from .graphlib.default_graph import (add_to_collection, add_to_collections,
                                     control_dependencies, device, get_collection,
                                     get_collection_ref, get_default_graph, get_name_scope,
                                     get_seed, name_scope, reset_default_graph,
                                     set_random_seed)
from .graphlib.dtypes import (DType, as_dtype, bool, double, float16, float32, float64, half,
                              int8, int16, int32, int64, string, uint8)
from .graphlib.gradients import gradients, hessians
from .graphlib.graph import Graph, GraphKeys
from .graphlib.graph_def import import_graph_def
from .graphlib.operation import Operation
from .graphlib.tensor import Tensor
from .graphlib.tensor_shape import Dimension, TensorShape
from .ops.convert import (constant, convert_to_tensor, convert_n_to_tensor,
                          register_tensor_conversion_function)
from .ops.variables import Variable, VariableV1
from .session import (ConfigProto, GPUOptions, GraphOptions, InteractiveSession,
                      OptimizerOptions, RunMetadata, RunOptions, Session, get_default_session)


def _export_families():
    """Put every op family's public functions at the top level, except ``tf.nn``'s."""
    namespace = globals()
    nn_families = {ops.nn_activation, ops.nn_softmax, ops.nn_activation_grad, ops.nn_loss,
                   ops.nn_softmax_cross_entropy, ops.nn_norm, ops.nn_conv, ops.nn_pool,
                   ops.nn_pool_grad}
    # tf.losses, tf.metrics; internal: training and fused ops
    namespaced = {ops.losses, ops.metrics, ops.training_ops, ops.fused_ops, ops.summary_ops}
    for module in ops.FAMILIES:
        if module in nn_families or module in namespaced:
            continue
        for name in module.__all__:
            namespace.setdefault(name, getattr(module, name))
    for name in ("sigmoid", "tanh"):  # TF1 has these at both levels
        if hasattr(ops.math_unary, name):
            namespace[name] = getattr(ops.math_unary, name)


_export_families()
del _export_families

# Sub-namespaces, after the op families are registered.
from . import compat, export, losses, math, metrics, nn, optimizer, random, train  # noqa: E402
from . import summary  # noqa: E402

from .summary import (histogram_summary, image_summary, merge_all_summaries,  # noqa: E402
                      merge_summary, scalar_summary)

newaxis = None


def __getattr__(name):
    # TF1 scripts build ``tf.Summary`` protos by hand; the class comes from tensorboard.
    if name == "Summary":
        return summary.Summary
    raise _missing_attribute("tf", name)


def disable_eager_execution():
    """No-op: staticgraph is always in graph mode (TF1 scripts on TF2 call this)."""


def disable_v2_behavior():
    """No-op: staticgraph always behaves like TF1 graph mode."""


def executing_eagerly() -> bool:
    """Always False: staticgraph only builds graphs."""
    return False


__version__ = "0.1.0"
