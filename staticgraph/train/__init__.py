"""train: training algorithms (TF1's ``tf.train``).

Optimizers append symbolic gradients and in-place update ops (``ApplyAdam`` ...)
to the graph; the global step counts steps; learning-rate schedules are ordinary
ops computed from the global step.
"""

from .adagrad import AdagradOptimizer
from .adam import AdamOptimizer
from .gradient_descent import GradientDescentOptimizer
from .learning_rate_decay import (cosine_decay, exponential_decay, inverse_time_decay,
                                  natural_exp_decay, piecewise_constant, polynomial_decay)
from .momentum import MomentumOptimizer
from .optimizer import Optimizer
from .rmsprop import RMSPropOptimizer
from .training_util import (assert_global_step, create_global_step, get_global_step,
                            get_or_create_global_step, global_step)

__all__ = [
    "Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdamOptimizer",
    "RMSPropOptimizer", "AdagradOptimizer", "get_global_step", "create_global_step",
    "get_or_create_global_step", "global_step", "assert_global_step", "exponential_decay",
    "piecewise_constant", "polynomial_decay", "natural_exp_decay", "inverse_time_decay",
    "cosine_decay",
]
