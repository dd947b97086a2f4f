"""TF1's renamed keywords: one helper, TF1's message (the old name first)."""

import numpy as np
import pytest

import staticgraph as tf
from staticgraph.ops.argument_aliases import deprecated_argument_lookup


def test_lookup_takes_whichever_name_was_given():
    assert deprecated_argument_lookup("axis", 1, "dim", None) == 1
    assert deprecated_argument_lookup("axis", None, "dim", 2) == 2
    assert deprecated_argument_lookup("axis", None, "dim", None) is None
    with pytest.raises(ValueError, match="^Cannot specify both 'dim' and 'axis'$"):
        deprecated_argument_lookup("axis", 0, "dim", 0)


@pytest.mark.parametrize("call, message", [
    (lambda x: tf.expand_dims(x, axis=0, dim=0), "'dim' and 'axis'"),
    (lambda x: tf.squeeze(x, axis=[0], squeeze_dims=[0]), "'squeeze_dims' and 'axis'"),
    (lambda x: tf.nn.softmax(x, axis=-1, dim=-1), "'dim' and 'axis'"),
    (lambda x: tf.nn.l2_normalize(x, axis=0, dim=0), "'dim' and 'axis'"),
    (lambda x: tf.losses.cosine_distance(x, x, axis=1, dim=1), "'dim' and 'axis'"),
    (lambda x: tf.nn.dropout(x, keep_prob=0.5, rate=0.5), "'keep_prob' and 'rate'"),
    (lambda x: tf.reduce_logsumexp(x, axis=0, reduction_indices=0),
     "'reduction_indices' and 'axis'"),
])
def test_every_renamed_keyword_refuses_both_names_as_tf1_does(call, message):
    x = tf.constant(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match=f"Cannot specify both {message}"):
        call(x)
