"""Adam: slots ``m`` and ``v`` per variable, shared ``beta1_power``/``beta2_power``."""

from __future__ import annotations

from ..graphlib import get_default_graph
from ..ops.state import training_ops
from ..ops.convert import convert_to_tensor
from .optimizer import Optimizer

__all__ = ["AdamOptimizer"]


class AdamOptimizer(Optimizer):
    """Adam (TF1's ``tf.train.AdamOptimizer``; Kingma and Ba, epsilon-hat form).

    Per step ``t``: ``lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``m = beta1 * m + (1 - beta1) * g``, ``v = beta2 * v + (1 - beta2) * g^2``,
    ``var -= lr_t * m / (sqrt(v) + epsilon)``. ``m`` and ``v`` are the slots
    ``"m"`` and ``"v"`` (variables ``<var>/Adam`` and ``<var>/Adam_1``); ``beta^t`` are
    the non-trainable variables ``beta1_power`` and ``beta2_power``, multiplied by
    ``beta1``/``beta2`` after each step.

    Args:
        learning_rate, beta1, beta2, epsilon: floats, tensors or callables.
        use_locking: accepted for TF1 compatibility.
        name: default ``"Adam"``.

    Example:
        >>> train_op = tf.train.AdamOptimizer(1e-3).minimize(loss)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 use_locking=False, name="Adam"):
        super().__init__(use_locking, name)
        self._lr = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon
        self._lr_t = self._beta1_t = self._beta2_t = self._epsilon_t = None

    def _get_beta_accumulators(self, graph=None):
        graph = graph or get_default_graph()
        return (self._get_non_slot_variable("beta1_power", graph=graph),
                self._get_non_slot_variable("beta2_power", graph=graph))

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda x: x.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power",
                                       colocate_with=first_var)
        self._create_non_slot_variable(initial_value=self._beta2, name="beta2_power",
                                       colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _prepare(self):
        self._lr_t = convert_to_tensor(self._call_if_callable(self._lr), name="learning_rate")
        self._beta1_t = convert_to_tensor(self._call_if_callable(self._beta1), name="beta1")
        self._beta2_t = convert_to_tensor(self._call_if_callable(self._beta2), name="beta2")
        self._epsilon_t = convert_to_tensor(self._call_if_callable(self._epsilon),
                                            name="epsilon")

    def _apply_dense(self, grad, var):
        m = self.get_slot(var, "m")
        v = self.get_slot(var, "v")
        beta1_power, beta2_power = self._get_beta_accumulators(var.graph)
        return training_ops.apply_adam(
            var, m, v, self._cast(beta1_power, var), self._cast(beta2_power, var),
            self._cast(self._lr_t, var), self._cast(self._beta1_t, var),
            self._cast(self._beta2_t, var), self._cast(self._epsilon_t, var), grad,
            use_locking=self._use_locking).op

    def _finish(self, update_ops, name_scope):
        graph = get_default_graph()
        with graph.control_dependencies(update_ops):
            beta1_power, beta2_power = self._get_beta_accumulators(graph)
            update_beta1 = beta1_power.assign(beta1_power * self._beta1_t,
                                              use_locking=self._use_locking)
            update_beta2 = beta2_power.assign(beta2_power * self._beta2_t,
                                              use_locking=self._use_locking)
        return super()._finish(update_ops + [update_beta1, update_beta2], name_scope)
