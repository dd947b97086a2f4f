"""RMSProp (plain or centered), with momentum."""

from __future__ import annotations

from ..ops.array import fill as _fill
from ..ops.state import training_ops
from ..ops.convert import convert_to_tensor
from .optimizer import Optimizer

__all__ = ["RMSPropOptimizer"]


class RMSPropOptimizer(Optimizer):
    """RMSProp (TF1's ``tf.train.RMSPropOptimizer``).

    ``ms = decay * ms + (1 - decay) * g^2``,
    ``mom = momentum * mom + learning_rate * g / sqrt(ms + epsilon)``, ``var -= mom``;
    ``centered`` also tracks ``mg = decay * mg + (1 - decay) * g`` and divides by
    ``sqrt(ms - mg^2 + epsilon)``. Slots: ``"rms"`` (started at ones, variable
    ``<var>/RMSProp``), ``"mg"`` when centered (``<var>/RMSProp_1``) and
    ``"momentum"`` (the next suffix).

    Args:
        learning_rate, decay, momentum, epsilon: floats, tensors or callables.
        use_locking: accepted for TF1 compatibility.
        centered: normalize by the estimated variance instead of the second moment.
        name: default ``"RMSProp"``.
    """

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._decay = decay
        self._momentum = momentum
        self._epsilon = epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            self._get_or_make_slot_with_initializer(
                v, lambda shape, dtype: _fill.ones(shape, dtype=dtype, name="ones"), "rms",
                self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _prepare(self):
        c = self._call_if_callable
        self._learning_rate_tensor = convert_to_tensor(c(self._learning_rate),
                                                       name="learning_rate")
        self._decay_tensor = convert_to_tensor(c(self._decay), name="decay")
        self._momentum_tensor = convert_to_tensor(c(self._momentum), name="momentum")
        self._epsilon_tensor = convert_to_tensor(c(self._epsilon), name="epsilon")

    def _apply_dense(self, grad, var):
        rms = self.get_slot(var, "rms")
        mom = self.get_slot(var, "momentum")
        args = [self._cast(t, var) for t in (self._learning_rate_tensor, self._decay_tensor,
                                            self._momentum_tensor, self._epsilon_tensor)]
        if self._centered:
            mg = self.get_slot(var, "mg")
            return training_ops.apply_centered_rms_prop(
                var, mg, rms, mom, *args, grad, use_locking=self._use_locking).op
        return training_ops.apply_rms_prop(var, rms, mom, *args, grad,
                                           use_locking=self._use_locking).op
