"""Plain gradient descent: ``var -= learning_rate * grad``."""

from __future__ import annotations

from ..ops.state import training_ops
from ..ops.convert import convert_to_tensor
from .optimizer import Optimizer

__all__ = ["GradientDescentOptimizer"]


class GradientDescentOptimizer(Optimizer):
    """Gradient descent (TF1's ``tf.train.GradientDescentOptimizer``).

    Args:
        learning_rate: a float, a tensor (e.g. from ``exponential_decay``) or a callable
            returning one.
        use_locking: accepted for TF1 compatibility.
        name: name scope of the update ops (default ``"GradientDescent"``).

    Example:
        >>> train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        return training_ops.apply_gradient_descent(
            var, self._cast(self._learning_rate_tensor, var), grad,
            use_locking=self._use_locking).op
