"""Momentum (heavy ball or Nesterov): one ``momentum`` slot per variable."""

from __future__ import annotations

from ..ops.state import training_ops
from ..ops.convert import convert_to_tensor
from .optimizer import Optimizer

__all__ = ["MomentumOptimizer"]


class MomentumOptimizer(Optimizer):
    """Momentum (TF1's ``tf.train.MomentumOptimizer``).

    ``accum = momentum * accum + grad; var -= learning_rate * accum``; with
    ``use_nesterov``: ``var -= learning_rate * (grad + momentum * accum)``. The
    accumulator is the slot ``"momentum"`` (variable ``<var>/Momentum``).

    Args:
        learning_rate: a float, tensor or callable.
        momentum: a float, tensor or callable.
        use_locking: accepted for TF1 compatibility.
        name: default ``"Momentum"``.
        use_nesterov: use Nesterov momentum.
    """

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum",
                 use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(
            self._call_if_callable(self._learning_rate), name="learning_rate")
        self._momentum_tensor = convert_to_tensor(
            self._call_if_callable(self._momentum), name="momentum")

    def _apply_dense(self, grad, var):
        mom = self.get_slot(var, "momentum")
        return training_ops.apply_momentum(
            var, mom, self._cast(self._learning_rate_tensor, var), grad,
            self._cast(self._momentum_tensor, var), use_locking=self._use_locking,
            use_nesterov=self._use_nesterov).op
