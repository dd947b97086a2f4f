"""Cases for the in-place training ops (ApplyAdam, ApplyMomentum, ...).

Each case builds variables initialized from the fed inputs, runs the update after
their initializers (control dependencies, one ``Session.run``) and fetches the
updated variable and slots. Expected values are the TF1 formulas in numpy (float64
then rounded), written out by hand.
"""

import numpy as np

import staticgraph as tf
from staticgraph.ops.state import training_ops

from . import Case, rng

R = rng(11)
F = np.float32
VAR = R.standard_normal((2, 3)).astype(F)
GRAD = R.standard_normal((2, 3)).astype(F)
ACC = R.uniform(0.1, 1.0, (2, 3)).astype(F)   # positive slots (second moments)
SLOT = R.standard_normal((2, 3)).astype(F)
SMALL = (R.standard_normal((2, 3)) * 0.1).astype(F)


def _stateful(apply_fn, num_refs):
    """A ``build``: the first ``num_refs`` inputs become variables, updated by
    ``apply_fn(*variables, grad)``; fetches the update's output and then each slot."""

    def build(*phs):
        refs = [tf.Variable(p, validate_shape=p.shape.is_fully_defined(), name=f"ref{i}")
                for i, p in enumerate(phs[:num_refs])]
        with tf.control_dependencies([r.initializer for r in refs]):
            out = apply_fn(*refs, *phs[num_refs:])
        with tf.control_dependencies([out]):
            slots = [r.read_value() for r in refs[1:]]
        return [out] + slots
    return build


def _f(x):
    return np.asarray(x, np.float64)


H = np.float16


def _h(x):
    """``x`` rounded to float16, as a float64."""
    return float(np.float16(x))


def _half_adam():
    return dict(zip(("b1p", "b2p", "lr", "b1", "b2", "eps"), map(_h, _ADAM)))


def _adam_ref(var, m, v, g, b1p=0.9 ** 3, b2p=0.999 ** 3, lr=0.01, b1=0.9, b2=0.999,
              eps=1e-7, nesterov=False):
    var, m, v, g = map(_f, (var, m, v, g))
    alpha = lr * np.sqrt(1 - b2p) / (1 - b1p)
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    num = (b1 * m + (1 - b1) * g) if nesterov else m
    var = var - alpha * num / (np.sqrt(v) + eps)
    return [var.astype(F), m.astype(F), v.astype(F)]


def _momentum_ref(var, accum, g, lr=0.1, momentum=0.9, nesterov=False):
    var, accum, g = map(_f, (var, accum, g))
    accum = accum * momentum + g
    var = var - (lr * g + lr * momentum * accum if nesterov else lr * accum)
    return [var.astype(F), accum.astype(F)]


def _rmsprop_ref(var, ms, mom, g, lr=0.05, rho=0.9, momentum=0.5, eps=1e-6):
    var, ms, mom, g = map(_f, (var, ms, mom, g))
    ms = rho * ms + (1 - rho) * g * g
    mom = momentum * mom + lr * g / np.sqrt(ms + eps)
    return [(var - mom).astype(F), ms.astype(F), mom.astype(F)]


def _centered_ref(var, mg, ms, mom, g, lr=0.05, rho=0.9, momentum=0.5, eps=1e-6, out=F):
    var, mg, ms, mom, g = map(_f, (var, mg, ms, mom, g))
    mg = rho * mg + (1 - rho) * g
    ms = rho * ms + (1 - rho) * g * g
    mom = momentum * mom + lr * g / np.sqrt(ms - mg * mg + eps)
    return [(var - mom).astype(out), mg.astype(out), ms.astype(out), mom.astype(out)]


def _adagrad_ref(var, accum, g, lr=0.1, update_slots=True):
    var, accum, g = map(_f, (var, accum, g))
    if update_slots:
        accum = accum + g * g
    return [(var - lr * g / np.sqrt(accum)).astype(F), accum.astype(F)]


_ADAM = (0.9 ** 3, 0.999 ** 3, 0.01, 0.9, 0.999, 1e-7)

CASES = [
    Case("ApplyGradientDescent",
         _stateful(lambda v, g: training_ops.apply_gradient_descent(v, 0.25, g), 1),
         [VAR, GRAD], lambda v, g: [(_f(v) - 0.25 * _f(g)).astype(F)],
         bad=[[(2, 3), (3,)]], bad_dtypes=[[np.float32, np.float64], [np.int32, np.int32]]),
    Case("ApplyGradientDescent",
         _stateful(lambda v, lr, g: training_ops.apply_gradient_descent(v, lr, g), 1),
         [np.float64(1.5), np.float64(0.5), np.float64(-2.0)],
         lambda v, lr, g: [np.float64(2.5)], id="scalar_f64_lr_tensor",
         bad=[[(), (2,), ()]]),
    Case("ApplyMomentum",
         _stateful(lambda v, a, g: training_ops.apply_momentum(v, a, 0.1, g, 0.9), 2),
         [VAR, SLOT, GRAD], _momentum_ref, bad=[[(2, 3), (2, 3), (2, 2)]]),
    Case("ApplyMomentum",
         _stateful(lambda v, a, g: training_ops.apply_momentum(v, a, 0.1, g, 0.9,
                                                               use_nesterov=True), 2),
         [VAR, SLOT, GRAD], lambda v, a, g: _momentum_ref(v, a, g, nesterov=True),
         id="nesterov"),
    Case("ApplyAdam",
         _stateful(lambda v, m, s, g: training_ops.apply_adam(v, m, s, *_ADAM, g), 3),
         [VAR, SLOT, ACC, GRAD], _adam_ref, bad=[[(2, 3), (2, 3), (3, 2), (2, 3)]],
         bad_dtypes=[[np.float32, np.float32, np.float32, np.float16]]),
    Case("ApplyAdam",
         _stateful(lambda v, m, s, g: training_ops.apply_adam(v, m, s, *_ADAM, g,
                                                              use_nesterov=True), 3),
         [VAR, SLOT, ACC, GRAD], lambda *a: _adam_ref(*a, nesterov=True), id="nesterov"),
    Case("ApplyAdam",
         _stateful(lambda v, m, s, lr, g: training_ops.apply_adam(
             v, m, s, _ADAM[0], _ADAM[1], lr, *_ADAM[3:], g), 3),
         [VAR, SLOT, ACC, np.float32(0.01), GRAD],
         lambda v, m, s, lr, g: _adam_ref(v, m, s, g), id="lr_fed",
         bad=[[(2, 3), (2, 3), (2, 3), (1,), (2, 3)]]),
    Case("ApplyRMSProp",
         _stateful(lambda v, ms, mom, g: training_ops.apply_rms_prop(
             v, ms, mom, 0.05, 0.9, 0.5, 1e-6, g), 3),
         [VAR, ACC, SLOT, GRAD], _rmsprop_ref, bad=[[(2, 3), (2,), (2, 3), (2, 3)]]),
    Case("ApplyCenteredRMSProp",
         _stateful(lambda v, mg, ms, mom, g: training_ops.apply_centered_rms_prop(
             v, mg, ms, mom, 0.05, 0.9, 0.5, 1e-6, g), 4),
         [VAR, SMALL, ACC, SLOT, GRAD], _centered_ref,
         bad=[[(2, 3), (2, 3), (2, 3), (2, 3), (3, 3)]]),
    Case("ApplyAdagrad",
         _stateful(lambda v, a, g: training_ops.apply_adagrad(v, a, 0.1, g), 2),
         [VAR, ACC, GRAD], _adagrad_ref, bad=[[(2, 3), (2, 3), (6,)]],
         bad_dtypes=[[np.float64, np.float32, np.float64]]),
    Case("ApplyAdagrad",
         _stateful(lambda v, a, g: training_ops.apply_adagrad(v, a, 0.1, g,
                                                              update_slots=False), 2),
         [VAR, ACC, GRAD], lambda v, a, g: _adagrad_ref(v, a, g, update_slots=False),
         id="no_slot_update"),
    # float16 variables (the hyper-parameters become float16 too; the references use
    # those rounded values in float64, the kernel rounds every step to float16).
    Case("ApplyAdam",
         _stateful(lambda v, m, s, g: training_ops.apply_adam(v, m, s, *_ADAM, g), 3),
         [VAR.astype(H), SLOT.astype(H), ACC.astype(H), GRAD.astype(H)],
         lambda *a: [x.astype(H) for x in _adam_ref(*a, **_half_adam())],
         rtol=2e-3, atol=2e-3, id="f16"),
    Case("ApplyMomentum",
         _stateful(lambda v, a, g: training_ops.apply_momentum(v, a, 0.1, g, 0.9,
                                                               use_nesterov=True), 2),
         [VAR.astype(H), SLOT.astype(H), GRAD.astype(H)],
         lambda v, a, g: [x.astype(H) for x in _momentum_ref(v, a, g, lr=_h(0.1),
                                                             momentum=_h(0.9), nesterov=True)],
         rtol=2e-3, atol=2e-3, id="nesterov_f16"),
    # float64: the formulas in float64 exactly
    Case("ApplyCenteredRMSProp",
         _stateful(lambda v, mg, ms, mom, g: training_ops.apply_centered_rms_prop(
             v, mg, ms, mom, 0.05, 0.9, 0.5, 1e-6, g), 4),
         [_f(VAR), _f(SMALL), _f(ACC), _f(SLOT), _f(GRAD)],
         lambda *a: [_f(x) for x in _centered_ref(*a, out=np.float64)], rtol=1e-12, atol=1e-12,
         id="f64"),
]
