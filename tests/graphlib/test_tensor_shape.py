"""TensorShape and Dimension: unknown rank and dimensions, merging, compatibility,
broadcasting."""

import numpy as np
import pytest

from staticgraph import Dimension, TensorShape
from staticgraph.graphlib import as_shape, broadcast_static, unknown_shape


def test_unknown_rank():
    s = TensorShape(None)
    assert s.rank is None and s.ndims is None and s.raw is None and s.dims is None
    assert not s and not s.is_fully_defined() and s.num_elements() is None
    assert str(s) == "<unknown>" and repr(s) == "TensorShape(None)"
    with pytest.raises(ValueError):
        s.as_list()
    with pytest.raises(ValueError):
        len(s)
    with pytest.raises(ValueError):
        iter(s)
    assert s[0].value is None and s[1:].rank is None


def test_known_and_unknown_dims():
    s = TensorShape([None, 784])
    assert s.rank == 2 and s.raw == (None, 784) and s.as_list() == [None, 784]
    assert s[0].value is None and s[1].value == 784 and s[-1].value == 784
    assert s[1:] == TensorShape([784])
    assert str(s) == "(?, 784)" and s.as_proto_string() == "[?,784]"
    assert str(TensorShape([3])) == "(3,)"
    assert not s.is_fully_defined()
    with pytest.raises(ValueError, match="not fully defined"):
        s.assert_is_fully_defined()
    assert [d.value for d in s] == [None, 784]
    assert TensorShape([2, 3]).num_elements() == 6
    assert TensorShape([]).num_elements() == 1 and bool(TensorShape([]))


def test_construction_forms():
    assert TensorShape(3).raw == (3,)
    assert TensorShape((np.int64(2), Dimension(4), None)).raw == (2, 4, None)
    assert TensorShape(TensorShape([1, 2])).raw == (1, 2)
    assert as_shape([1, None]).raw == (1, None)
    assert unknown_shape().rank is None and unknown_shape(2).raw == (None, None)
    with pytest.raises(ValueError):
        TensorShape([-1])
    with pytest.raises(ValueError, match="Ambiguous dimension"):
        TensorShape([2.5])
    assert TensorShape([2.0]).raw == (2,)


def test_equality():
    assert TensorShape([1, 2]) == [1, 2]
    assert TensorShape([1, 2]) == (1, 2)
    assert TensorShape([1, None]) != TensorShape([1, 2])
    assert TensorShape(None) == TensorShape(None)
    assert TensorShape([1]) != "abc"
    assert hash(TensorShape([1, 2])) == hash(TensorShape((1, 2)))


@pytest.mark.parametrize("a,b,ok", [
    (None, [1, 2], True), ([1, 2], None, True), ([None, 2], [3, 2], True),
    ([None, 2], [3, 4], False), ([1, 2], [1, 2, 3], False), ([], [], True),
    ([], [1], False),
])
def test_is_compatible_with(a, b, ok):
    assert TensorShape(a).is_compatible_with(TensorShape(b)) is ok
    assert TensorShape(a).is_compatible_with(b) is ok


def test_merge_with():
    assert TensorShape([None, 3]).merge_with([2, None]).raw == (2, 3)
    assert TensorShape(None).merge_with([2, None]).raw == (2, None)
    assert TensorShape([2, None]).merge_with(None).raw == (2, None)
    with pytest.raises(ValueError, match="not compatible"):
        TensorShape([2, 3]).merge_with([2, 4])
    with pytest.raises(ValueError):
        TensorShape([2, 3]).merge_with([2])


def test_rank_helpers_and_concatenate():
    assert TensorShape(None).with_rank(2).raw == (None, None)
    assert TensorShape([1, 2]).with_rank(2).raw == (1, 2)
    with pytest.raises(ValueError, match="rank 3"):
        TensorShape([1, 2]).with_rank(3)
    with pytest.raises(ValueError, match="at least 3"):
        TensorShape([1, 2]).with_rank_at_least(3)
    assert TensorShape([1]).concatenate([None, 2]).raw == (1, None, 2)
    assert TensorShape([1]).concatenate(None).rank is None


@pytest.mark.parametrize("a,b,out", [
    ([2, 3], [3], (2, 3)), ([2, 1], [1, 4], (2, 4)), ([None, 3], [3], (None, 3)),
    ([None], [1], (None,)), ([1], [None], (None,)), ([None], [5], (5,)),
    ([], [2, 2], (2, 2)), ([5, None], [None, 1], (5, None)),
])
def test_broadcast_static(a, b, out):
    assert broadcast_static(TensorShape(a), TensorShape(b)).raw == out
    assert broadcast_static(TensorShape(b), TensorShape(a)).raw == out
    # agree with numpy where everything is known
    if None not in a and None not in b:
        assert np.broadcast_shapes(tuple(a), tuple(b)) == out


def test_broadcast_static_errors_and_unknown_rank():
    with pytest.raises(ValueError, match="3 and 4"):
        broadcast_static(TensorShape([3]), TensorShape([4]))
    assert broadcast_static(TensorShape(None), TensorShape([3])).rank is None


def test_dimension():
    assert Dimension(3) == 3 and Dimension(3) == Dimension(3) and Dimension(None).value is None
    assert int(Dimension(4)) == 4 and [0, 1, 2, 3, 4][Dimension(4)] == 4
    with pytest.raises(TypeError):
        int(Dimension(None))
    assert (Dimension(2) + 3).value == 5 and (Dimension(None) * 2).value is None
    assert (3 * Dimension(2)).value == 6 and (Dimension(7) // 2).value == 3
    assert Dimension(None).is_compatible_with(4) and not Dimension(3).is_compatible_with(4)
    assert Dimension(None).merge_with(4).value == 4
    with pytest.raises(ValueError):
        Dimension(3).merge_with(4)
    assert str(Dimension(None)) == "?"
