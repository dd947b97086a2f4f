"""The numpy backend's interpreted program, for schedules too large to compile.

Python's ``compile()`` takes ~10 us a line, which a 50,000-op graph would pay on every
first run; such a schedule runs as a flat program over a register list instead. The
registers are the schedule's slots (so a freed value's register is cleared, as the
generated code's ``del`` releases it), one register for discarded outputs, and one
register per constant, filled once when the plan is built.
"""

from __future__ import annotations

from .numpy_codegen import Constant, fetch_expression, function_text, returning

__all__ = ["interpreted_source", "interpret", "INTERPRET_CODE"]

# Program entries: (code, kernel, argument register(s), second argument, output(s)).
_CALL1, _CALL2, _CALL, _LOAD, _CLEAR, _CALL_MANY, _CALL_NO_OUTPUT = range(7)


def interpret(R, V, program):
    """Run an interpreted plan over the register list ``R`` (``V``: variable values)."""
    step = None
    for step in program:
        code, kernel, a, b, out = step
        if code == 0:
            R[out] = kernel(R[a])
        elif code == 1:
            R[out] = kernel(R[a], R[b])
        elif code == 2:
            R[out] = kernel(*[R[i] for i in a])
        elif code == 3:
            R[out] = V[a]
        elif code == 4:
            for i in a:
                R[i] = None
        elif code == 5:
            for i, value in zip(out, kernel(*[R[i] for i in a]), strict=True):
                R[i] = value
        else:
            kernel(*[R[i] for i in a])


INTERPRET_CODE = interpret.__code__


def interpreted_source(schedule, actions, env, head_lines, fetch_copies, epilogue):
    """The plan function's source for ``schedule``, running an interpreted program.

    Arguments as :func:`~staticgraph.session.backends.numpy_codegen.generate_source`.

    Returns:
        ``(source, program, entry_steps, arg_sources)``: ``entry_steps`` maps
        ``id(program entry)`` to its step index; ``arg_sources[step index]`` lists the
        register of each kernel argument as ``("register", index)``.
    """
    junk = schedule.num_slots  # the register of outputs nobody reads
    initial = [None] * (junk + 1)
    # slot -> the register holding its value now: the slot's own, or a constant's
    register = {s: s for s in schedule.feed_slots}
    program, entry_steps, arg_sources = [], {}, {}
    calls = 0
    for index, (step, action) in enumerate(zip(schedule.steps, actions)):
        if isinstance(action, Constant):
            if step.outputs[0] is not None:
                register[step.outputs[0]] = len(initial)
                initial.append(action.value)
            continue
        for s, var in step.loads:
            register[s] = s
            load = (_LOAD, None, var, None, s)
            entry_steps[id(load)] = index
            program.append(load)
        released = [register[s] for s in step.frees]
        if action is not None:
            calls += 1
            args = tuple(register[s] for s in step.inputs if s is not None)
            arg_sources[index] = tuple(("register", r) for r in args)
            outs = []
            for s in step.outputs:
                if s is not None:
                    register[s] = s
                outs.append(junk if s is None else s)
            if not step.op.outputs:
                entry = (_CALL_NO_OUTPUT, action, args, None, None)
            elif len(outs) > 1:
                entry = (_CALL_MANY, action, args, None, tuple(outs))
            elif len(args) == 1:
                entry = (_CALL1, action, args[0], None, outs[0])
            elif len(args) == 2:
                entry = (_CALL2, action, args[0], args[1], outs[0])
            else:
                entry = (_CALL, action, args, None, outs[0])
            entry_steps[id(entry)] = index
            program.append(entry)
        else:
            outs = ()
        stale = [r for r in dict.fromkeys(released) if r not in outs and r < junk]
        if stale:  # a constant's register keeps its value for the next run
            program.append((_CLEAR, None, tuple(stale), None, None))
    name = {}
    for s, var in schedule.fetch_loads:
        name[s] = f"V[{var!r}]"
    for s in schedule.fetch_slots:
        if s is not None and s not in name:
            name[s] = f"R[{register.get(s, s)}]"
    ret = fetch_expression(schedule, name, fetch_copies)
    env.update(schedule.template.constants)  # the structure's types and keys
    env.update({"_run": interpret, "_prog": program, "_R0": initial})
    lines = list(head_lines) + ["R = _R0.copy()"]
    lines += [f"R[{s}] = f{i}" for i, s in enumerate(schedule.feed_slots)]
    lines += ["_run(R, V, _prog)"] + returning(ret, epilogue)
    header, body, footer = function_text(len(schedule.feed_slots), env, lines)
    source = ("\n".join(header + body + footer)
              + f"\n# {len(program)} interpreted steps ({calls} kernel calls)\n")
    return source, program, entry_steps, arg_sources
