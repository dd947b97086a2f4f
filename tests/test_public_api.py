"""The TF1 names the project promises exist, in the namespaces TF1 has them, documented."""

import pytest

import staticgraph as tf

TOP_LEVEL = """
add subtract multiply divide truediv floordiv mod floormod truncatediv pow negative abs sign exp
log log1p sqrt rsqrt square reciprocal floor ceil round sin cos tan tanh sigmoid erf maximum
minimum squared_difference add_n cumsum clip_by_value matmul tensordot equal not_equal less
less_equal greater greater_equal logical_and logical_or logical_not logical_xor where cast
to_float to_int32 reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_any reduce_all
reduce_logsumexp argmax argmin count_nonzero reshape transpose expand_dims squeeze concat stack
unstack split tile pad slice strided_slice gather gather_nd one_hot shape size rank fill zeros
ones zeros_like ones_like range linspace identity stop_gradient reverse boolean_mask sequence_mask
meshgrid broadcast_to unique random_normal random_uniform truncated_normal random_shuffle
multinomial set_random_seed no_op group tuple control_dependencies placeholder
placeholder_with_default constant convert_to_tensor Variable global_variables_initializer
variables_initializer initialize_all_variables global_variables trainable_variables
local_variables_initializer local_variables Session InteractiveSession Graph get_default_graph
reset_default_graph name_scope device get_collection add_to_collection get_default_session assign
assign_add assign_sub
""".split()

NN = """
relu relu6 elu selu softplus softsign leaky_relu sigmoid tanh softmax log_softmax bias_add
softmax_cross_entropy_with_logits softmax_cross_entropy_with_logits_v2
sparse_softmax_cross_entropy_with_logits sigmoid_cross_entropy_with_logits l2_loss l2_normalize
moments batch_normalization dropout embedding_lookup in_top_k conv2d max_pool avg_pool
conv2d_transpose top_k
""".split()

ERRORS = """
OpError InvalidArgumentError FailedPreconditionError NotFoundError OutOfRangeError
ResourceExhaustedError UnknownError InternalError UnimplementedError AbortedError CancelledError
AlreadyExistsError PermissionDeniedError DeadlineExceededError UnavailableError DataLossError
""".split()

DTYPES = "float16 float32 float64 int8 int16 int32 int64 uint8 bool string".split()


@pytest.mark.parametrize("name", TOP_LEVEL)
def test_top_level_function_exists_and_is_documented(name):
    obj = getattr(tf, name)
    assert callable(obj)
    assert obj.__doc__ and obj.__doc__.strip(), f"tf.{name} has no docstring"


@pytest.mark.parametrize("name", NN)
def test_nn_function_exists_and_is_documented(name):
    obj = getattr(tf.nn, name)
    assert callable(obj)
    assert obj.__doc__ and obj.__doc__.strip(), f"tf.nn.{name} has no docstring"


@pytest.mark.parametrize("name", ERRORS)
def test_error_classes_are_op_errors(name):
    cls = getattr(tf.errors, name)
    assert issubclass(cls, tf.errors.OpError)
    err = cls(None, None, "message")
    assert str(err) == "message" and err.op is None


@pytest.mark.parametrize("name", DTYPES)
def test_dtypes_have_tf1_names(name):
    assert getattr(tf, name).name == name


def test_compat_v1_is_the_same_api():
    import staticgraph.compat.v1 as v1
    assert v1.placeholder is tf.placeholder and v1.nn.relu is tf.nn.relu


def test_namespaces_math_and_random():
    assert tf.math.reduce_sum is tf.reduce_sum
    assert tf.random.normal is tf.random_normal
    assert not tf.executing_eagerly()


def test_nn_functions_stay_under_nn():
    assert not hasattr(tf, "relu") and not hasattr(tf, "conv2d")
