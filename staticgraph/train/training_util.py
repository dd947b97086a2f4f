"""The global step: an int64 scalar variable counting training steps."""

from __future__ import annotations

from ..graphlib import GraphKeys, Tensor, dtypes, get_default_graph
from ..ops.array import fill as _fill
from ..ops.state.variables import Variable

__all__ = ["get_global_step", "create_global_step", "get_or_create_global_step",
           "global_step", "assert_global_step"]


def global_step(sess, global_step_tensor):
    """The value of ``global_step_tensor`` in ``sess`` as a Python int.

    Example:
        >>> tf.train.global_step(sess, step)  # 10
    """
    return int(sess.run(global_step_tensor))


def assert_global_step(global_step_tensor):
    """Check that ``global_step_tensor`` is an integer scalar variable or tensor.

    Raises:
        TypeError: it is not a Variable or Tensor, not an integer, or not a scalar.
    """
    if not isinstance(global_step_tensor, (Variable, Tensor)):
        raise TypeError(f'Existing "global_step" must be a Variable or Tensor: '
                        f"{global_step_tensor}.")
    if not global_step_tensor.dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: '
                        f"{global_step_tensor.dtype}")
    shape = global_step_tensor.shape
    if shape.rank != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def get_global_step(graph=None):
    """The global step of ``graph`` (default graph): the single variable of the
    ``GLOBAL_STEP`` collection, else the tensor named ``global_step:0``, else None.

    Raises:
        TypeError: the global step found is not an integer scalar.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    else:
        return None  # TF1 logs "Multiple tensors in global_step collection."
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """Create the global step of ``graph``: an int64 scalar variable named
    ``global_step`` starting at 0, non-trainable, in ``GLOBAL_VARIABLES`` and
    ``GLOBAL_STEP``.

    Raises:
        ValueError: the graph already has a global step.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.control_dependencies(None), graph.name_scope(None):
        return Variable(lambda: _fill.zeros([], dtype=dtypes.int64, name="zeros"),
                        trainable=False, name=GraphKeys.GLOBAL_STEP, dtype=dtypes.int64,
                        collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global step of ``graph``, created first when it has none.

    Example:
        >>> step = tf.train.get_or_create_global_step()
    """
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step
