"""TF1 behaviour of the elementwise math family beyond the per-op cases.

Dtype promotion of ``/``, Python semantics of ``//`` and ``%``, default op names,
errors at run time (integer division by zero), composite functions (add_n, xor,
div, truediv, scalar_mul) and numerical quality (erf, sigmoid).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import staticgraph as tf
from ...helpers import run


@pytest.fixture(autouse=True)
def no_numpy_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        yield


def op_types(graph):
    return [op.type for op in graph.get_operations()]


# ------------------------------------------------------------------ true division
@pytest.mark.parametrize("dtype,want", [
    (tf.int8, tf.float32), (tf.int16, tf.float32), (tf.uint8, tf.float32),
    (tf.int32, tf.float64), (tf.int64, tf.float64),
    (tf.float16, tf.float16), (tf.float32, tf.float32), (tf.float64, tf.float64)])
def test_truediv_dtype_table(dtype, want):
    x = tf.placeholder(dtype, [3])
    for out in (tf.truediv(x, x), tf.divide(x, x), x / x):
        assert out.dtype == want
        assert out.op.type == "RealDiv"
    got = run(x / x, {x: np.array([1, 2, 4], dtype.np_dtype)})
    assert got.dtype == want.np_dtype
    np.testing.assert_array_equal(got, [1, 1, 1])


def test_int32_divided_by_python_int_is_float64(fresh_graph):
    x = tf.constant([7, -7, 1], dtype=tf.int32)
    y = x / 2
    assert y.dtype == tf.float64 and y.op.name == "truediv"
    assert y.op.type == "RealDiv"
    assert [t.op.type for t in y.op.inputs] == ["Cast", "Cast"]
    assert all(t.op.name.startswith("truediv/") for t in y.op.inputs)
    np.testing.assert_array_equal(run(y), [3.5, -3.5, 0.5])
    z = 3 / x  # reflected
    np.testing.assert_allclose(run(z), [3 / 7, -3 / 7, 3.0])
    assert z.dtype == tf.float64


def test_truediv_refuses_bool_and_mixed_dtypes():
    b = tf.placeholder(tf.bool, [2])
    with pytest.raises(TypeError, match="Invalid dtype"):
        tf.truediv(b, b)
    with pytest.raises(TypeError):
        tf.truediv(tf.placeholder(tf.float32), tf.placeholder(tf.float64))


def test_divide_names():
    x = tf.placeholder(tf.float32, [2])
    first = tf.divide(x, x)
    assert first.op.name == "truediv" and first.op.type == "RealDiv"
    assert tf.divide(x, x, name="ratio").op.name == "ratio"
    assert tf.truediv(x, 2.0, name="half").op.name == "half"


def test_float_division_by_zero_gives_inf_nan_silently():
    x = tf.constant([1.0, -1.0, 0.0])
    got = run([x / 0.0, tf.realdiv(x, 0.0), tf.div(x, 0.0)])
    for g in got:
        np.testing.assert_array_equal(g, [np.inf, -np.inf, np.nan])


# ------------------------------------------------------------------ floor division and modulo
def test_python_semantics_of_floordiv_and_mod():
    xs = np.array([-7, 7, -7, 7, 6, -6, 0], np.int32)
    ys = np.array([2, -2, -2, 2, -3, 4, 5], np.int32)
    x, y = tf.constant(xs), tf.constant(ys)
    q, r = x // y, x % y
    assert q.op.type == "FloorDiv" and q.op.name == "floordiv"
    assert r.op.type == "FloorMod" and r.op.name == "mod"
    gq, gr = run([q, r])
    assert gq.dtype == np.int32 and gr.dtype == np.int32
    assert gq.tolist() == [a // b for a, b in zip(xs.tolist(), ys.tolist())]
    assert gr.tolist() == [a % b for a, b in zip(xs.tolist(), ys.tolist())]


def test_float_floordiv_and_mod():
    x = tf.constant([-7.5, 7.5, 5.0])
    y = tf.constant([2.0, -2.0, 2.5])
    gq, gr = run([x // y, x % y])
    np.testing.assert_array_equal(gq, [-4.0, -4.0, 2.0])
    np.testing.assert_array_equal(gr, [0.5, -0.5, 0.0])


def test_div_is_python2_division():
    i = tf.constant([-7, 7], tf.int32)
    f = tf.constant([-7.0, 7.0])
    di, df = tf.div(i, 2), tf.div(f, 2.0, name="half")
    assert di.op.type == "FloorDiv" and di.dtype == tf.int32 and di.op.name == "div"
    assert df.op.type == "RealDiv" and df.dtype == tf.float32 and df.op.name == "half"
    gi, gf = run([di, df])
    assert gi.tolist() == [-4, 3]
    assert gf.tolist() == [-3.5, 3.5]
    with pytest.raises(TypeError):
        tf.div(tf.constant([True]), tf.constant([True]))


def test_truncatediv_and_truncatemod_follow_c():
    x = tf.constant([-7, 7, -7, 7, -6], tf.int64)
    y = tf.constant([2, -2, -2, 2, 3], tf.int64)
    q, r = run([tf.truncatediv(x, y), tf.truncatemod(x, y)])
    assert q.tolist() == [-3, -3, 3, 3, -2]
    assert r.tolist() == [-1, 1, -1, 1, 0]
    with pytest.raises(TypeError):
        tf.truncatediv(tf.constant([1.0]), tf.constant([2.0]))


@pytest.mark.parametrize("fn", [tf.floordiv, tf.floormod, tf.mod, tf.truncatediv,
                                tf.truncatemod, tf.div, tf.floor_div])
@pytest.mark.parametrize("dtype", [tf.int32, tf.int64, tf.uint8])
def test_integer_division_by_zero_is_invalid_argument(fn, dtype):
    x = tf.placeholder(dtype, [None])
    y = tf.placeholder(dtype, [None])
    out = fn(x, y)
    feeds = {x: np.array([4, 5], dtype.np_dtype), y: np.array([2, 0], dtype.np_dtype)}
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        run(out, feeds)
    feeds[y] = np.array([2, 3], dtype.np_dtype)
    want = [0, 2] if fn in (tf.floormod, tf.mod, tf.truncatemod) else [2, 1]
    assert run(out, feeds).tolist() == want


def test_integer_reciprocal_of_zero_is_invalid_argument():
    x = tf.placeholder(tf.int32, [None])
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(tf.reciprocal(x), {x: [1, 0]})


def test_integer_negative_power_is_invalid_argument():
    x = tf.constant([2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        run(tf.pow(x, -1))
    assert run(tf.pow(x, 3)).tolist() == [8, 27]


# ------------------------------------------------------------------ default op names
def test_default_op_names():
    f = tf.placeholder(tf.float32, [2], name="f")
    i = tf.placeholder(tf.int32, [2], name="i")
    b = tf.placeholder(tf.bool, [2], name="b")
    expected = {
        "Neg": tf.negative(f), "Abs": tf.abs(f), "Sign": tf.sign(f), "Exp": tf.exp(f),
        "Log": tf.log(f), "Log1p": tf.log1p(f), "Sqrt": tf.sqrt(f), "Rsqrt": tf.rsqrt(f),
        "Square": tf.square(f), "Reciprocal": tf.reciprocal(f), "Floor": tf.floor(f),
        "Ceil": tf.ceil(f), "Round": tf.round(f), "Sin": tf.sin(f), "Cos": tf.cos(f),
        "Tan": tf.tan(f), "Tanh": tf.tanh(f), "Sigmoid": tf.sigmoid(f), "Erf": tf.erf(f),
        "Expm1": tf.expm1(f), "Pow": tf.pow(f, f), "Maximum": tf.maximum(f, f),
        "Minimum": tf.minimum(f, f), "SquaredDifference": tf.squared_difference(f, f),
        "FloorMod": tf.mod(i, i), "TruncateDiv": tf.truncatediv(i, i),
        "TruncateMod": tf.truncatemod(i, i), "RealDiv": tf.realdiv(f, f),
        "FloorDiv": tf.floor_div(i, i),
        "div_no_nan": tf.div_no_nan(f, f), "AddN": tf.add_n([f, f]),
        "Mul": tf.scalar_mul(2.0, f), "Add": tf.add(f, f), "Sub": tf.subtract(f, f),
        "Equal": tf.equal(f, f), "NotEqual": tf.not_equal(f, f), "Less": tf.less(f, f),
        "LessEqual": tf.less_equal(f, f), "Greater": tf.greater(f, f),
        "GreaterEqual": tf.greater_equal(f, f), "LogicalAnd": tf.logical_and(b, b),
        "LogicalOr": tf.logical_or(b, b), "LogicalNot": tf.logical_not(b),
        "LogicalXor": tf.logical_xor(b, b), "Atan2": tf.atan2(f, f),
    }
    for name, t in expected.items():
        assert t.op.name == name, (name, t.op.name)
    assert tf.exp(f, name="e").op.name == "e"


def test_scoped_default_names():
    i = tf.placeholder(tf.int32, [2])
    assert tf.floordiv(i, i).op.name == "floordiv"
    assert tf.truediv(i, i).op.name == "truediv"
    assert tf.pow(i, 2).op.name == "Pow"
    assert tf.div(i, i).op.name == "div"
    assert tf.floordiv(i, 3, name="q").op.name == "q"


def test_operator_op_names():
    f = tf.placeholder(tf.float32, [2])
    i = tf.placeholder(tf.int32, [2])
    b = tf.placeholder(tf.bool, [2])
    assert (f + f).op.name == "add"
    assert (f - f).op.name == "sub"
    assert (f * f).op.name == "mul"
    assert (f / f).op.name == "truediv"
    assert (i // i).op.name == "floordiv"
    assert (i % i).op.name == "mod"
    assert (f ** f).op.name == "pow"
    assert (-f).op.name == "Neg"
    assert abs(f).op.name == "Abs"
    assert (b & b).op.name == "LogicalAnd"
    assert (b | b).op.name == "LogicalOr"
    assert (b ^ b).op.name == "LogicalXor"
    assert (~b).op.type == "LogicalNot"
    assert (f < f).op.type == "Less" and (f >= f).op.type == "GreaterEqual"


def test_logical_xor_is_composed_like_tf1(fresh_graph):
    p = tf.placeholder(tf.bool, [4])
    q = tf.placeholder(tf.bool, [4])
    out = tf.logical_xor(p, q)
    assert op_types(fresh_graph)[2:] == ["LogicalOr", "LogicalAnd", "LogicalNot", "LogicalAnd"]
    assert out.op.name == "LogicalXor"
    got = run(out, {p: [True, True, False, False], q: [True, False, True, False]})
    assert got.tolist() == [False, True, True, False]


# ------------------------------------------------------------------ dtypes and shapes
def test_dtype_errors_while_declaring():
    f = tf.placeholder(tf.float32, [2])
    i = tf.placeholder(tf.int32, [2])
    for fn in (tf.exp, tf.log, tf.sqrt, tf.sigmoid, tf.erf, tf.floor, tf.tanh):
        with pytest.raises(TypeError):
            fn(i)
    for fn in (tf.add, tf.maximum, tf.pow, tf.equal, tf.less):
        with pytest.raises(TypeError):
            fn(f, i)
    with pytest.raises(TypeError):
        tf.logical_and(f, f)
    with pytest.raises(TypeError):
        tf.negative(tf.placeholder(tf.uint8, [2]))


def test_python_values_take_the_tensor_dtype():
    x = tf.placeholder(tf.float64, [2])
    assert tf.maximum(x, 0).dtype == tf.float64
    assert tf.pow(2, x).dtype == tf.float64
    assert tf.equal(1, x).dtype == tf.bool
    assert tf.add(1, 2).dtype == tf.int32
    assert run(tf.add(1, 2)) == 3


def test_static_shapes_broadcast():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [4, 1, 1])
    assert tf.maximum(a, b).shape.as_list() == [4, None, 3]
    assert tf.less(a, b).shape.as_list() == [4, None, 3]
    assert tf.less(a, b).dtype == tf.bool
    assert tf.exp(a).shape.as_list() == [None, 3]
    assert tf.pow(a, tf.placeholder(tf.float32)).shape.raw is None
    with pytest.raises(ValueError):
        tf.floordiv(a, tf.placeholder(tf.float32, [2]))


def test_equal_on_strings():
    s = tf.constant(["a", "b", "c"])
    assert run(tf.equal(s, "b")).tolist() == [False, True, False]
    assert run(tf.not_equal(s, tf.constant(["a", "x", "c"]))).tolist() == [False, True, False]


# ------------------------------------------------------------------ add_n and scalar_mul
def test_add_n_of_one_tensor_returns_it(fresh_graph):
    x = tf.placeholder(tf.float32, [2])
    assert tf.add_n([x]) is x
    named = tf.add_n([x], name="total")
    assert named.op.type == "Identity" and named.op.name == "total"


def test_add_n_refuses_bad_inputs():
    x = tf.placeholder(tf.float32, [2])
    for bad in ([], x, None):
        with pytest.raises(ValueError):
            tf.add_n(bad)
    with pytest.raises(ValueError, match="same shape"):
        tf.add_n([x, tf.placeholder(tf.float32, [3])])
    with pytest.raises(TypeError):
        tf.add_n([x, tf.placeholder(tf.float64, [2])])


def test_add_n_merges_static_shapes_and_checks_at_run_time():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [2, None])
    c = tf.placeholder(tf.float32)
    s = tf.add_n([a, b, c, np.ones((2, 3), np.float32)])
    assert s.shape.as_list() == [2, 3]
    ones = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(run(s, {a: ones, b: ones, c: ones}), np.full((2, 3), 4.0))
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(tf.add_n([c, c, tf.placeholder_with_default(ones, None)]), {c: np.ones(3)})


def test_add_n_does_not_modify_inputs():
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [2])
    va, vb = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    assert run(tf.add_n([a, b, a]), {a: va, b: vb}).tolist() == [5.0, 8.0]
    assert va.tolist() == [1.0, 2.0] and vb.tolist() == [3.0, 4.0]


def test_scalar_mul():
    x = tf.constant([1.0, -2.0])
    out = tf.scalar_mul(3, x)
    assert out.op.type == "Mul" and out.dtype == tf.float32
    assert run(out).tolist() == [3.0, -6.0]
    assert run(tf.scalar_mul(tf.constant(0.5), x)).tolist() == [0.5, -1.0]
    with pytest.raises(ValueError, match="Only scalar multiply"):
        tf.scalar_mul([1.0, 2.0], x)


def test_div_no_nan_zero_where_divisor_is_zero():
    x = tf.constant([[1.0, 0.0], [np.inf, -3.0]], tf.float64)
    y = tf.constant([0.0, 2.0], tf.float64)
    assert run(tf.div_no_nan(x, y)).tolist() == [[0.0, 0.0], [0.0, -1.5]]
    with pytest.raises(TypeError):
        tf.div_no_nan(tf.constant([1, 2]), tf.constant([1, 0]))


# ------------------------------------------------------------------ rounding
def test_round_halves_to_even_and_keeps_integers(fresh_graph):
    x = tf.constant([0.5, 1.5, 2.5, -0.5, -2.5, 2.6, -2.6], tf.float64)
    assert run(tf.round(x)).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 3.0, -3.0]
    i = tf.constant([1, 2])
    assert tf.round(i) is i


# ------------------------------------------------------------------ numerical quality
def test_sigmoid_is_stable_and_symmetric():
    xs = np.array([-1e4, -745.0, -100.0, -20.0, -1e-3, 0.0, 1e-3, 20.0, 100.0, 1e4])
    x = tf.constant(xs)
    s, r = run([tf.sigmoid(x), tf.sigmoid(-x)])
    assert np.all(np.isfinite(s)) and np.all(s >= 0) and np.all(s <= 1)
    np.testing.assert_allclose(s + r, 1.0, rtol=1e-15)
    assert s[3] == pytest.approx(1 / (1 + math.exp(20)), rel=1e-14)   # tiny tail kept
    assert s[2] == pytest.approx(math.exp(-100), rel=1e-14)
    assert s[0] == 0.0 and s[-1] == 1.0 and s[5] == 0.5


def test_math_kernels_are_quiet_on_inf_and_nan():
    x = tf.constant([-1.0, 0.0, 1000.0, np.inf, np.nan])
    fetched = run([tf.log(x), tf.sqrt(x), tf.exp(x), tf.rsqrt(x), tf.reciprocal(x),
                   tf.square(tf.constant([1e30])), tf.pow(x, 0.5), tf.log1p(x - 1.0),
                   tf.sin(x), tf.acos(x), tf.cosh(x), tf.div_no_nan(x, x)])
    assert fetched[0][1] == -np.inf and np.isnan(fetched[0][0])
    assert fetched[2][2] == np.inf
    assert fetched[5][0] == np.inf


def test_public_functions_are_exported():
    for name in ("negative", "abs", "round", "pow", "mod", "floormod", "div", "realdiv",
                 "truncatediv", "truncatemod", "squared_difference", "add_n", "scalar_mul",
                 "div_no_nan", "logical_xor", "erf", "sigmoid", "rsqrt", "is_nan"):
        assert callable(getattr(tf, name)), name
    assert tf.nn.sigmoid is tf.sigmoid and tf.nn.tanh is tf.tanh


# ------------------------------------------------------------------ gradients (TF1's rules)
def _grads(y, xs, feed=None):
    gs = tf.gradients(y, xs)
    return gs, run([g for g in gs if g is not None], feed)


def test_maximum_and_minimum_gradients_send_ties_to_x(fresh_graph):
    x = tf.constant([1.0, 2.0, 3.0], tf.float64)
    y = tf.constant(2.0, tf.float64)
    _, (dx, dy) = _grads(tf.maximum(x, y), [x, y])
    assert dx.tolist() == [0.0, 1.0, 1.0] and dy == 1.0   # x >= y: the tie goes to x
    _, (dx, dy) = _grads(tf.minimum(x, y), [x, y])
    assert dx.tolist() == [1.0, 1.0, 0.0] and dy == 1.0   # x <= y: the tie goes to x
    assert np.shape(dy) == ()


def test_pow_gradient_uses_zero_log_term_for_nonpositive_base(fresh_graph):
    x = tf.constant([0.0, -2.0, 2.0, 0.5], tf.float64)
    y = tf.constant([2.0, 3.0, 2.0, -1.0], tf.float64)
    _, (dx, dy) = _grads(tf.pow(x, y), [x, y])
    np.testing.assert_allclose(dx, [0.0, 12.0, 4.0, -4.0])
    np.testing.assert_allclose(dy, [0.0, 0.0, 4 * math.log(2.0), 2 * math.log(0.5)])


def test_floormod_gradient_is_one_and_minus_floor_quotient(fresh_graph):
    x = tf.constant([[7.5, -7.5], [1.0, 5.5]], tf.float64)
    y = tf.constant([2.0, -3.0], tf.float64)
    _, (dx, dy) = _grads(tf.floormod(x, y), [x, y])
    assert dx.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    # -floor(x / y) summed over the broadcast rows: -(3 + 0) and -(2 + -2)
    assert dy.tolist() == [-3.0, 0.0]


def test_sign_gradient_is_zeros_and_rounding_gradients_are_none(fresh_graph):
    x = tf.placeholder(tf.float32, [None, 2])
    feed = {x: np.array([[1.5, -2.0]], np.float32)}
    gs, (ds,) = _grads(tf.sign(x), [x], feed)
    assert gs[0] is not None and ds.tolist() == [[0.0, 0.0]]
    for fn in (tf.floor, tf.ceil, tf.round, tf.rint, lambda v: tf.floordiv(v, 2.0),
               lambda v: tf.floor_div(3.0, v)):
        assert tf.gradients(fn(x), [x]) == [None]
    # floor(x) + x still differentiates through the second term
    _, (d,) = _grads(tf.floor(x) + x, [x], feed)
    assert d.tolist() == [[1.0, 1.0]]


def test_truncatemod_has_no_gradient_like_tf1(fresh_graph):
    x = tf.constant([7.5, -7.5])
    with pytest.raises(LookupError, match="TruncateMod"):
        tf.gradients(tf.truncatemod(x, 2.0), [x])


def test_comparisons_and_logical_ops_carry_no_gradient(fresh_graph):
    x = tf.constant([1.0, -2.0])
    for b in (tf.less(x, 0.0), tf.equal(x, 1.0), tf.logical_not(tf.greater(x, 0.0))):
        assert b.dtype == tf.bool
        assert tf.gradients(tf.cast(b, tf.float32), [x]) == [None]
    # selecting with a comparison still differentiates through the selected values
    _, (d,) = _grads(tf.where(tf.less(x, 0.0), -x, x), [x])
    assert d.tolist() == [1.0, -1.0]


def test_add_n_gradient_goes_to_every_input(fresh_graph):
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    _, (da, db) = _grads(tf.add_n([a, b, a]) * tf.constant([1.0, 10.0]), [a, b])
    assert da.tolist() == [2.0, 20.0] and db.tolist() == [1.0, 10.0]


def test_exp_gradient_reuses_the_forward_output(fresh_graph):
    x = tf.placeholder(tf.float64, [2])
    y = tf.exp(x)
    g = tf.gradients(y, [x])[0]
    assert g.op.type == "Mul" and y in list(g.op.inputs)
    np.testing.assert_allclose(run(g, {x: [0.0, 1.0]}), [1.0, math.e])


def test_hessian_of_tanh_matches_closed_form(fresh_graph):
    xv = np.array([0.3, -1.2, 0.8])
    x = tf.constant(xv)
    h = run(tf.hessians(tf.reduce_sum(tf.tanh(x)), x)[0])
    t = np.tanh(xv)
    np.testing.assert_allclose(h, np.diag(-2 * t * (1 - t * t)), rtol=1e-12, atol=1e-15)


# ------------------------------------------------ dtype mismatches name the op and the line
def _next_line():
    """The line after the caller's current one: where the caller declares next."""
    import inspect
    frame = inspect.currentframe().f_back
    return f"{frame.f_code.co_filename}:{frame.f_lineno + 1}"


@pytest.mark.parametrize("fn,op_type", [
    (tf.add, "Add"), (tf.subtract, "Sub"), (tf.multiply, "Mul"), (tf.maximum, "Maximum"),
    (tf.minimum, "Minimum"), (tf.pow, "Pow"), (tf.realdiv, "RealDiv"),
    (tf.squared_difference, "SquaredDifference"), (tf.floormod, "FloorMod")])
def test_binary_dtype_mismatch_names_op_dtypes_and_user_line(fresh_graph, fn, op_type):
    i = tf.placeholder(tf.int32, [2, 3], name="i")
    f = tf.placeholder(tf.float32, [3], name="f")
    count = len(fresh_graph.get_operations())
    with pytest.raises(TypeError) as info:
        where = _next_line()
        fn(i, f)
    msg = str(info.value)
    # TF 1.15's wording (op_def_library), then the op's name, shapes and the user's line
    assert msg.startswith(f"Input 'y' of '{op_type}' Op has type float32 that does not match "
                          f"type int32 of argument 'x'"), msg
    assert "with input shapes: [2,3], [3]" in msg
    assert msg.endswith(f"Declared at {where}."), msg
    assert len(fresh_graph.get_operations()) == count      # nothing was declared
    # the name quoted is the one the op gets in the same graph with agreeing inputs
    named = msg.split(" for '", 1)[1].split("'", 1)[0]
    with tf.Graph().as_default():
        i2 = tf.placeholder(tf.int32, [2, 3], name="i")
        f2 = tf.placeholder(tf.float32, [3], name="f")
        same = f2 if op_type == "RealDiv" else i2      # RealDiv takes floats only
        assert fn(same, same).op.name == named == op_type


def test_dtype_mismatch_name_follows_scopes_and_given_names(fresh_graph):
    i = tf.constant([1, 2])
    f = tf.constant([1.0, 2.0])
    with tf.name_scope("block"):
        tf.add(i, i)
        with pytest.raises(TypeError, match=r"for 'block/Add_1' \(op: 'Add'\)"):
            tf.add(i, f)
        assert tf.add(i, i).name == "block/Add_1:0"
    with pytest.raises(TypeError, match=r"for 'mine' \(op: 'Add'\)"):
        tf.add(i, f, name="mine")
    # scoped wrappers name the op after their scope
    with pytest.raises(TypeError, match=r"of 'RealDiv' Op .* for 'truediv' \(op: 'RealDiv'\)"):
        tf.truediv(i, f)
    with pytest.raises(TypeError, match=r"of 'DivNoNan' Op .* for 'safe' \(op: 'DivNoNan'\)"):
        tf.div_no_nan(f, i, name="safe")
    with pytest.raises(TypeError, match=r"Input 'inputs\[2\]' of 'AddN' Op has type float32 "
                                        r"that does not match type int32 of argument "
                                        r"'inputs\[0\]'"):
        tf.add_n([i, i, f])
    # the Python operator reports the same, under its own op name
    with pytest.raises(TypeError) as info:
        where = _next_line()
        i * f
    assert "of 'Mul' Op has type float32" in str(info.value)
    assert str(info.value).endswith(f"Declared at {where}.")


def test_python_value_of_another_dtype_names_parameter_op_and_line(fresh_graph):
    i = tf.constant([1, 2])
    with pytest.raises(TypeError) as info:
        where = _next_line()
        tf.add(i, 1.5)
    msg = str(info.value)
    assert msg.startswith("Expected int32 passed to parameter 'y' of op 'Add', got 1.5 of "
                          "type 'float' instead."), msg
    assert msg.endswith(f"Declared at {where}.")
    assert tf.add(i, 2).dtype == tf.int32      # a value that fits converts silently
