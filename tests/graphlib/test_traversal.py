"""graphlib.traversal: what fetches need (feeds cut, control inputs followed), in which
order, and the ops between inputs and outputs, against hand-written expectations."""

import collections

import pytest

import staticgraph as tf
from staticgraph.graphlib.traversal import (CycleError, all_outputs_fed, creation_order,
                                            data_consumers, dependency_order, execution_order,
                                            needed_ops, ops_between, reachable_ops,
                                            topological_order)


pytestmark = pytest.mark.usefixtures("g")  # every test on a fresh default graph (conftest)


def names(ops):
    return [op.name for op in ops]


def diamond():
    """x -> a -> c <- b <- x, and d unrelated; c also waits for the no-op n."""
    x = tf.placeholder(tf.float32, [2], name="x")
    a = tf.identity(x, name="a")
    b = tf.negative(x, name="b")
    n = tf.no_op(name="n")
    with tf.control_dependencies([n]):
        c = tf.add(a, b, name="c")
    d = tf.constant(1.0, name="d")
    return x, a, b, n, c, d


# ------------------------------------------------------------------ what is needed
def test_needed_ops_follow_inputs_and_control_inputs_in_creation_order():
    x, a, b, n, c, d = diamond()
    assert names(needed_ops([c])) == ["x", "a", "b", "n", "c"]
    assert names(needed_ops([c.op])) == ["x", "a", "b", "n", "c"]   # an op as element
    assert names(needed_ops([a, d])) == ["x", "a", "d"]
    assert needed_ops([]) == []


def test_fed_tensors_cut_the_walk():
    x, a, b, n, c, d = diamond()
    assert names(needed_ops([c], {id(a)})) == ["x", "b", "n", "c"]      # a's producer left
    assert names(needed_ops([c], {id(a), id(b)})) == ["n", "c"]
    assert names(needed_ops([a], {id(a)})) == []                        # fetching a feed
    assert names(needed_ops([c], {id(x)})) == ["a", "b", "n", "c"]


def test_fed_ops_run_only_when_asked():
    x, a, b, n, c, d = diamond()
    fed = {id(a)}
    # By default an op given as an element is needed even when all its outputs are fed.
    assert names(needed_ops([a.op], fed)) == ["x", "a"]
    assert names(needed_ops([a.op], fed, fed_ops_run=True)) == []
    with tf.control_dependencies([a.op]):
        e = tf.identity(d, name="e")
    assert names(needed_ops([e], fed)) == ["x", "a", "d", "e"]
    assert names(needed_ops([e], fed, fed_ops_run=True)) == ["d", "e"]
    assert all_outputs_fed(a.op, fed) and not all_outputs_fed(b.op, fed)
    assert not all_outputs_fed(n, fed)          # no outputs: never counts as fed


def test_reachable_ops_is_a_set_of_ops():
    x, a, b, n, c, d = diamond()
    found = reachable_ops([c])
    assert isinstance(found, set) and found == {x.op, a.op, b.op, n, c.op}
    assert reachable_ops([c], {id(a), id(b)}) == {n, c.op}


def test_deep_chains_are_walked_without_recursion():
    y = tf.placeholder(tf.float32, [], name="y0")
    for _ in range(5000):
        y = tf.identity(y)
    ops = needed_ops([y])
    assert len(ops) == 5001 and ops[0].name == "y0" and ops[-1] is y.op


# -------------------------------------------------------------------------- orders
def test_a_late_control_input_makes_the_order_topological():
    first = tf.no_op(name="first")
    middle = tf.no_op(name="middle")
    last = tf.no_op(name="last")
    first._add_control_input(last)        # first must now wait for last
    assert names(needed_ops([first, middle])) == ["middle", "last", "first"]
    assert names(execution_order({first, middle, last})) == ["middle", "last", "first"]
    assert names(creation_order({last, middle, first})) == ["first", "middle", "last"]


def test_a_feed_orders_nothing():
    x = tf.placeholder(tf.float32, [], name="x")
    early = tf.identity(x, name="early")
    late = tf.identity(x, name="late")
    early.op._add_control_input(late.op)
    fed = {id(late)}
    assert names(execution_order([early.op, late.op, x.op], fed)) == ["x", "late", "early"]
    # With fed_ops_run the fed op orders nothing: creation order stands.
    assert names(execution_order([early.op, x.op], fed, fed_ops_run=True)) == ["x", "early"]
    assert names(needed_ops([early], fed, fed_ops_run=True)) == ["x", "early"]


def test_a_cycle_is_refused_naming_its_ops():
    a = tf.no_op(name="a")
    b = tf.no_op(name="b")
    a._add_control_input(b)
    b._add_control_input(a)
    with pytest.raises(CycleError, match=r"cycle of control dependencies among \['a', 'b'\]") \
            as info:
        needed_ops([a])
    assert isinstance(info.value, ValueError) and info.value.stuck == [a, b]


def test_topological_order_of_any_items_breaks_ties_by_rank():
    Item = collections.namedtuple("Item", "name rank")
    p, q, r, s = Item("p", 3), Item("q", 1), Item("r", 2), Item("s", 0)
    deps = {id(p): [], id(q): [p], id(r): [], id(s): [q, r, r]}
    order = topological_order([p, q, r, s], deps, rank=lambda i: i.rank)
    assert [i.name for i in order] == ["r", "p", "q", "s"]
    with pytest.raises(CycleError) as info:
        topological_order([p, q], {id(p): [q], id(q): [p]}, rank=lambda i: i.rank)
    assert info.value.stuck == [q, p]          # in rank order


def test_dependency_order_keeps_an_ordered_list_and_moves_ops_only_as_needed():
    a = tf.placeholder(tf.float32, [], name="a")
    f = tf.identity(a, name="f")
    b = tf.identity(f, name="b")
    c = tf.constant(0.0, name="c")
    ordered = [a.op, f.op, b.op, c.op]
    assert dependency_order(ordered) is ordered
    # f listed last (as a fused op created by a rewrite): it moves just before b.
    assert names(dependency_order([a.op, b.op, c.op, f.op])) == ["a", "f", "b", "c"]
    d = tf.no_op(name="d")
    c.op._add_control_input(d)
    assert names(dependency_order([a.op, c.op, f.op, b.op, d])) == ["a", "d", "c", "f", "b"]


# ------------------------------------------------------ between inputs and outputs
def test_ops_between_follow_data_paths_only():
    x = tf.placeholder(tf.float32, [], name="x")
    z = tf.placeholder(tf.float32, [], name="z")
    h = tf.square(x, name="h")
    side = tf.negative(x, name="side")          # downstream of x, but y does not need it
    noise = tf.identity(z, name="noise")        # y needs it, but not downstream of x
    with tf.control_dependencies([side]):
        y = tf.add(h, noise, name="y")
    between, downstream = ops_between(tf.get_default_graph().get_operations(), [x], [y])
    assert names(between) == ["h", "y"]          # the control input carries no derivative
    assert downstream == {id(h.op), id(side.op), id(y.op)}


def test_ops_between_stop_at_stopped_tensors():
    x = tf.placeholder(tf.float32, [], name="x")
    h = tf.square(x, name="h")
    k = tf.exp(x, name="k")
    y = tf.add(h, k, name="y")
    ops = tf.get_default_graph().get_operations()
    assert names(ops_between(ops, [x], [y])[0]) == ["h", "k", "y"]
    assert names(ops_between(ops, [x], [y], stop={id(h)})[0]) == ["k", "y"]
    assert names(ops_between(ops, [h], [y])[0]) == ["y"]


def test_variable_writes_are_no_reads():
    v = tf.Variable(1.0, name="v")
    x = tf.placeholder(tf.float32, [], name="x")
    write = tf.assign(v, x, name="write")
    read = tf.identity(v, name="read")                 # reads the snapshot v/read
    consumers = data_consumers(tf.get_default_graph().get_operations())
    assert names(consumers[id(v._variable)]) == ["v/read"]   # not v/Assign, not write
    assert consumers[id(x)] == [write.op]
    between, _ = ops_between(tf.get_default_graph().get_operations(), [v._variable], [read])
    assert names(between) == ["v/read", "read"]
    assert ops_between(tf.get_default_graph().get_operations(), [x], [v._variable])[0] == []
