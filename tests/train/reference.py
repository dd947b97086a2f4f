"""TF1's optimizer updates written out in numpy (float32 arrays, like the variables)."""

import numpy as np

F = np.float32


def sgd(var, g, lr):
    var -= F(lr) * g


def momentum(var, slots, g, lr, mu, nesterov=False):
    acc = slots["momentum"]
    acc[...] = acc * F(mu) + g
    if nesterov:
        var -= g * F(lr) + acc * F(mu) * F(lr)
    else:
        var -= acc * F(lr)


def adam(var, slots, g, lr, b1, b2, eps, t):
    """Step ``t`` (1-based) of Adam with TF1's epsilon-hat form."""
    m, v = slots["m"], slots["v"]
    lr_t = F(lr) * np.sqrt(F(1) - F(b2) ** t) / (F(1) - F(b1) ** t)
    m[...] = F(b1) * m + (F(1) - F(b1)) * g
    v[...] = F(b2) * v + (F(1) - F(b2)) * g * g
    var -= lr_t * m / (np.sqrt(v) + F(eps))


def rmsprop(var, slots, g, lr, rho, mu, eps, centered=False):
    ms, mom = slots["rms"], slots["momentum"]
    ms[...] = F(rho) * ms + (F(1) - F(rho)) * g * g
    denom = ms
    if centered:
        mg = slots["mg"]
        mg[...] = F(rho) * mg + (F(1) - F(rho)) * g
        denom = ms - mg * mg
    mom[...] = F(mu) * mom + F(lr) * g / np.sqrt(denom + F(eps))
    var -= mom


def adagrad(var, slots, g, lr):
    acc = slots["accumulator"]
    acc += g * g
    var -= F(lr) * g / np.sqrt(acc)
