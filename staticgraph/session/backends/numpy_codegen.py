"""The numpy backend's generated function: one line per kernel call of a schedule.

Each value is a local variable named after the op that makes it (``t<op id>_<output>``),
deleted (``del``) after its last use; feeds are the parameters ``f0, f1, ...``;
constants (``c<op id>``) and kernels (``k<op id>``) are bound as keyword defaults, so
a run looks nothing up in a dictionary; a variable is read where it is used
(``V['name']``). The fetch structure is rebuilt by one return expression.
"""

from __future__ import annotations

__all__ = ["Constant", "generate_source", "returning", "function_text"]


class Constant:
    """A step whose value is known when the plan is built (an op without inputs or
    state, such as ``Const``): bound once instead of computed per run."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def generate_source(schedule, actions, env, head_lines, fetch_copies, epilogue):
    """The plan function's source for ``schedule``.

    Args:
        schedule: the :class:`~staticgraph.session.schedule.Schedule`.
        actions: per step, its kernel, a :class:`Constant`, or None for a no-op.
        env: names bound as defaults; kernels and constants are added to it.
        head_lines: lines before the first call (closed check, variable check, feeds).
        fetch_copies: per fetched element, True when its value must be copied (it may
            be session state).
        epilogue: lines run after the calls, before returning.

    Returns:
        ``(source, line_steps, arg_sources)``: ``line_steps`` maps a line number of the
        source to its step index; ``arg_sources[step index]`` lists where each kernel
        argument lives: ``("local", name)`` or ``("variable", name)``.
    """
    name = {s: f"f{i}" for i, s in enumerate(schedule.feed_slots)}
    local = set()  # slots holding a local variable that ``del`` releases
    lines = list(head_lines)
    line_steps, arg_sources = {}, {}
    for index, (step, action) in enumerate(zip(schedule.steps, actions)):
        op = step.op
        loaded = dict(step.loads)
        for s, var in step.loads:
            name[s] = f"V[{var!r}]"
            local.discard(s)
        if isinstance(action, Constant):
            if step.outputs[0] is not None:
                cname = f"c{op._id}"
                env[cname] = action.value
                name[step.outputs[0]] = cname
                local.discard(step.outputs[0])
            continue
        dead = list(dict.fromkeys(name[s] for s in step.frees if s in local))
        local.difference_update(step.frees)
        if action is not None:
            args = [name[s] for s in step.inputs if s is not None]
            arg_sources[index] = tuple(
                ("variable", loaded[s]) if s in loaded else ("local", name[s])
                for s in step.inputs if s is not None)
            kname = f"k{op._id}"
            env[kname] = action
            outs = []
            for k, s in enumerate(step.outputs):
                if s is None:
                    outs.append("_")
                    continue
                name[s] = f"t{op._id}_{k}"
                local.add(s)
                outs.append(name[s])
            call = f"{kname}({', '.join(args)})"
            if not op.outputs:
                line = call
            elif len(op.outputs) == 1:
                line = f"{outs[0]} = {call}"
            else:
                line = f"{', '.join(outs)}, = {call}"
            line_steps[len(lines)] = index
            lines.append(line)
        if dead:
            lines.append("del " + ", ".join(dead))
    for s, var in schedule.fetch_loads:
        name[s] = f"V[{var!r}]"
    ret = fetch_expression(schedule, name, fetch_copies)
    env.update(schedule.template.constants)  # the structure's types and keys
    header, body, footer = function_text(len(schedule.feed_slots), env,
                                         lines + returning(ret, epilogue))
    offset = len(header) + 1  # line numbers are 1-based
    line_steps = {k + offset: v for k, v in line_steps.items()}
    return "\n".join(header + body + footer) + "\n", line_steps, arg_sources


def fetch_expression(schedule, name, fetch_copies):
    """The expression rebuilding the fetch structure; ``name[slot]`` is a value's
    expression. Scalars (static rank 0) become numpy scalars, as TF1 returns them."""

    def value_of(i):
        s = schedule.fetch_slots[i]
        if s is None:
            return "None"
        if schedule.elements[i].shape.rank == 0:
            return f"{name[s]}[()]"  # a numpy scalar (never aliased)
        return f"{name[s]}.copy()" if fetch_copies[i] else name[s]

    return schedule.template.expression(value_of)


def function_text(nfeeds, env, lines):
    """``(header, body, footer)`` lines of ``def plan(f0, ..., *, <env defaults>)`` running
    ``lines`` inside a ``try`` whose failures go through ``_fail``."""
    params = "".join(f"f{i}, " for i in range(nfeeds))
    defaults = ", ".join(f"{k}={k}" for k in env)
    header = [f"def plan({params}*, {defaults}):", "    try:"]
    footer = ["    except Exception as _e:", "        raise _fail(_e, locals())"]
    return header, ["        " + b for b in lines], footer


def returning(ret, epilogue):
    """The lines returning expression ``ret`` after the ``epilogue`` lines."""
    if not epilogue:
        return [f"return {ret}"]
    return [f"_out = {ret}"] + epilogue + ["return _out"]
