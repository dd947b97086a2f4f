"""Drawing graphs: Graphviz DOT text, and SVG/PNG files through the ``dot`` program.

``to_dot(graph_or_fetches)`` needs nothing installed; ``render(..., "g.svg")`` runs
Graphviz's ``dot`` when it is on ``PATH`` (``.dot`` files are always written).

Legend (node ``shape`` / fill; every node and cluster also carries ``class=<kind>``):

==============  ===========================  ========================================
kind            shape                        fill
==============  ===========================  ========================================
placeholder     invhouse                     yellow ``#fde68a``
variable        cylinder                     green ``#a7f3d0``
constant        box, rounded                 grey ``#e5e7eb``
folded          box, rounded, bold border    pink ``#fbcfe8`` (a constant the
                                             optimizer computed; label says "folded")
fused           box3d                        violet ``#c4b5fd`` (label lists the ops
                                             it replaced)
update          hexagon                      red ``#fca5a5`` (Apply*/Assign* ops)
noop            octagon                      white
op              ellipse                      blue ``#dbeafe``
output          house                        white (ONNX graph outputs)
scope           folder                       like its cluster (a collapsed name
                                             scope; label ``layer1/`` and ``N ops``)
pruned          as its kind, dashed          light grey, grey text (``show_pruned``)
==============  ===========================  ========================================

Clusters are name scopes (nested). Their background tells the part of the
program: forward ``#f8fafc``, gradient (``gradients/`` scopes) orange ``#ffedd5``,
optimizer updates (``train``, ``Adam``, ``GradientDescent``, ... scopes, slot
variables, ``update_*``) red ``#fee2e2``. Edges are labelled ``dtype[shape]``
(``float32[?,784]``; ``[]`` a scalar, ``[...]`` an unknown rank); control
dependencies are dashed. When ops are placed on devices, each device gets a
border colour (listed in the label's last line and in the graph's comment).
Fetched nodes have a double border.

What is drawn comes from :mod:`.dot_graph` (a graph, what fetches need, or a
session's optimized plan) and :mod:`.dot_onnx` (an ONNX model); this module lays
the nodes out in name-scope clusters and writes DOT text or runs Graphviz.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import subprocess

from ..graphlib import get_default_graph
from .dot_graph import graph_nodes
from .dot_onnx import onnx_nodes
from .onnx_model_fields import is_onnx_model
from .selection import resolve_selection

__all__ = ["to_dot", "render", "GraphvizNotFoundError", "AUTO_COLLAPSE_OPS"]

AUTO_COLLAPSE_OPS = 300   # above this many drawn ops, scopes collapse automatically

_STYLE = {
    "placeholder": 'shape=invhouse, style=filled, fillcolor="#fde68a"',
    "variable": 'shape=cylinder, style=filled, fillcolor="#a7f3d0"',
    "constant": 'shape=box, style="rounded,filled", fillcolor="#e5e7eb"',
    "folded": 'shape=box, style="rounded,filled,bold", fillcolor="#fbcfe8"',
    "fused": 'shape=box3d, style=filled, fillcolor="#c4b5fd"',
    "update": 'shape=hexagon, style=filled, fillcolor="#fca5a5"',
    "noop": 'shape=octagon, style=filled, fillcolor="#ffffff"',
    "op": 'shape=ellipse, style=filled, fillcolor="#dbeafe"',
    "output": 'shape=house, style=filled, fillcolor="#ffffff"',
}
_PRUNED_STYLE = 'style="filled,dashed", fillcolor="#f3f4f6", fontcolor="#9ca3af", color="#d1d5db"'
_SHAPE_OF = {k: v.split(",")[0].split("=")[1] for k, v in _STYLE.items()}
_CLUSTER_FILL = {"forward": "#f8fafc", "gradient": "#ffedd5", "update": "#fee2e2"}
_SCOPE_FILL = {"forward": "#e5e7eb", "gradient": "#fdba74", "update": "#fca5a5"}
_DEVICE_COLORS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2",
                  "#ca8a04", "#db2777")
_OPTIMIZER_SCOPES = frozenset((
    "train", "Adam", "AdamW", "GradientDescent", "Momentum", "RMSProp", "Adagrad",
    "Adadelta", "Ftrl", "AdagradDA", "ProximalAdagrad", "ProximalGradientDescent", "Nadam",
    "beta1_power", "beta2_power", "update_ops"))
_SUFFIX = re.compile(r"_\d+$")


class GraphvizNotFoundError(RuntimeError):
    """The Graphviz ``dot`` program is needed (SVG/PNG output) but not installed."""


def _model(graph_or_fetches, session=None, feed_dict=None, optimized=False,
           show_pruned=False, level=None):
    """The nodes to draw: a list of :class:`~.dot_graph.DrawnNode` in creation order."""
    if is_onnx_model(graph_or_fetches):
        if optimized:
            raise ValueError("optimized=True draws a session's plan; an ONNX model has none.")
        return onnx_nodes(graph_or_fetches)
    graph, elements, fed = resolve_selection(graph_or_fetches, session, feed_dict)
    return graph_nodes(graph, elements, fed, session, optimized, show_pruned, level)


# --------------------------------------------------------------------- scopes
def _role_of_parts(parts, op_type=""):
    for p in parts:
        base = _SUFFIX.sub("", p)
        if base == "gradients":
            return "gradient"
        if base in _OPTIMIZER_SCOPES or p.startswith("update_"):
            return "update"
    if op_type and ("Apply" in op_type):
        return "update"
    return "forward"


def _auto_depth(scopes, limit):
    """The deepest collapse depth that draws at most ``limit`` boxes (at least 1)."""
    max_depth = max((len(s) for s in scopes), default=0)
    for depth in range(max_depth, 0, -1):
        count = sum(1 for s in scopes if len(s) < depth) + \
            len({s[:depth] for s in scopes if len(s) >= depth})
        if count <= limit:
            return depth
    return 1


# ---------------------------------------------------------------------- output
def _q(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(graph_or_fetches=None, session=None, feed_dict=None, collapse=None,
           optimized=False, show_pruned=False, auto_collapse=AUTO_COLLAPSE_OPS,
           show_shapes=True, rankdir="TB", title=None, level=None) -> str:
    """Graphviz DOT text drawing a graph, or what some fetches need.

    Args:
        graph_or_fetches: a :class:`~staticgraph.Graph` (all its ops), a tensor, op,
            variable or name, or a (nested) list of them (only the ops they need), or
            an ``onnx.ModelProto``. None: the default graph.
        session: the :class:`~staticgraph.Session` whose plan ``optimized=True`` draws
            (its optimizer level and options); also resolves names.
        feed_dict: keys are fed tensors (values ignored): the drawing stops there.
        collapse: draw name scopes at this depth as one box each (``1``: ``layer1/``
            is a box with its op count). None: automatic above ``auto_collapse`` ops.
        optimized: draw the session's optimized plan for these fetches instead: pruned
            ops omitted, fused ops listing what they replaced, folded constants marked.
        show_pruned: with ``optimized``, also draw the pruned/replaced ops, greyed.
        auto_collapse: op count above which scopes collapse (0 or None: never).
        show_shapes: label edges with ``dtype[shape]``.
        rankdir: Graphviz layout direction (``"TB"``, ``"LR"``).
        title: the graph's label.
        level: optimizer level for ``optimized`` (default: the session's).

    Returns:
        The DOT text (see the module docstring for the legend).

    Raises:
        ValueError: ``graph_or_fetches`` is text (such as DOT) rather than a graph or
            fetches; the message quotes its first line only.

    Example:
        >>> open("g.dot", "w").write(tf.export.to_dot(loss, collapse=1))
    """
    if graph_or_fetches is None:
        if session is not None:
            graph_or_fetches = session.graph
        else:
            graph_or_fetches = get_default_graph()
    elif isinstance(graph_or_fetches, str) and _looks_like_text(graph_or_fetches):
        raise ValueError(
            f"to_dot/render draw a graph, fetches or an ONNX model, not text: got "
            f"{_first_line(graph_or_fetches)} ({len(graph_or_fetches.splitlines())} lines). "
            "To draw DOT text, save it to a .dot file and run Graphviz: "
            "dot -Tsvg g.dot -o g.svg.")
    nodes = _model(graph_or_fetches, session, feed_dict, optimized, show_pruned, level)
    return _emit(nodes, collapse, auto_collapse, show_shapes, rankdir, title)


_QUOTED_CHARS = 80      # of a text argument's first line, in errors
_STDERR_LINES = 5       # of Graphviz's error output, in errors
_STDERR_LINE_CHARS = 200


def _looks_like_text(s):
    """A string that is DOT (or other multi-line) text rather than a tensor/op name
    (names hold neither line breaks nor braces)."""
    return "\n" in s or "{" in s


def _first_line(text, limit=_QUOTED_CHARS):
    """The first non-blank line of ``text``, repr-quoted and cut to ``limit`` chars."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if len(line) > limit:
        return repr(line[:limit]) + "..."
    return repr(line)


def _cap_lines(text, lines=_STDERR_LINES, width=_STDERR_LINE_CHARS):
    """``text`` cut to its first ``lines`` lines of at most ``width`` chars each."""
    all_lines = text.strip().splitlines()
    shown = [ln if len(ln) <= width else ln[:width] + "..." for ln in all_lines[:lines]]
    if len(all_lines) > lines:
        shown.append(f"... ({len(all_lines) - lines} more lines)")
    return "\n".join(shown)


def _emit(nodes, collapse, auto_collapse, show_shapes, rankdir, title):
    split = {n.name: n.name.split("/") for n in nodes}
    scopes = {name: tuple(parts[:-1]) for name, parts in split.items()}
    if collapse is not None:
        if isinstance(collapse, bool) or not isinstance(collapse, int) or collapse < 1:
            raise ValueError(f"collapse must be a depth >= 1 (or None), got {collapse!r}")
        depth = collapse
    elif auto_collapse and len(nodes) > auto_collapse:
        depth = _auto_depth(list(scopes.values()), auto_collapse)
    else:
        depth = None

    # Where each node is drawn: its own id, or its collapsed scope's box.
    drawn_as = {}
    boxes = collections.OrderedDict()      # scope tuple -> [op count, pruned count, kinds]
    devices = {}
    for n in nodes:
        s = scopes[n.name]
        if depth is not None and len(s) >= depth:
            key = s[:depth]
            box = boxes.get(key)
            if box is None:
                box = boxes[key] = [0, 0]
            box[0] += 1
            box[1] += n.pruned
            drawn_as[n.name] = "/".join(key) + "/"
        else:
            drawn_as[n.name] = n.name
        if n.device and n.device not in devices:
            devices[n.device] = _DEVICE_COLORS[len(devices) % len(_DEVICE_COLORS)]

    # Cluster tree: scope tuple -> list of lines; children tracked per scope.
    children = collections.defaultdict(list)    # scope tuple -> child scope tuples
    members = collections.defaultdict(list)     # scope tuple -> node lines
    known = {(): True}

    def ensure(scope):
        while scope not in known:
            known[scope] = True
            children[scope[:-1]].append(scope)
            scope = scope[:-1]

    for key, (count, pruned) in boxes.items():
        parent = key[:-1]
        ensure(parent)
        role = _role_of_parts(key)
        label = f"{key[-1]}/\n{count} op{'s' if count != 1 else ''}"
        if pruned:
            label += f"\n({pruned} pruned)"
        ident = "/".join(key) + "/"
        members[parent].append(
            f'{_q(ident)} [label={_q(label)}, shape=folder, style=filled, '
            f'fillcolor="{_SCOPE_FILL[role]}", class="scope {role}", '
            f'tooltip={_q(ident)}];')

    for n in nodes:
        if drawn_as[n.name] != n.name:
            continue
        parts = split[n.name]
        scope = scopes[n.name]
        ensure(scope)
        lines = [parts[-1], n.type]
        if n.note:
            lines.append(n.note)
        if n.device:
            lines.append(n.device)
        style = _STYLE[n.kind]
        role = _role_of_parts(parts, n.type)
        extra = ""
        if n.pruned:
            style = f"shape={_SHAPE_OF[n.kind]}, {_PRUNED_STYLE}"
        elif n.device:
            extra += f', color="{devices[n.device]}", penwidth=2.5'
        if n.fetched:
            extra += ", peripheries=2"
        cls = f"{n.kind} {role}" + (" pruned" if n.pruned else "")
        members[scope].append(
            f'{_q(n.name)} [label={_q(chr(10).join(lines))}, {style}, class="{cls}", '
            f'tooltip={_q(n.name)}{extra}];')

    out = [f"digraph {_q(title or 'staticgraph')} {{"]
    # newrank: Graphviz 2.43 (Debian/Ubuntu) fails with "trouble in init_rank" on nested
    # clusters joined by edges, as every training graph's gradient/update scopes are.
    graph_attrs = (f'rankdir={rankdir}, compound=true, newrank=true, fontname="Helvetica", '
                   'fontsize=11')
    if title:
        graph_attrs += f", label={_q(title)}, labelloc=t"
    out.append(f"  graph [{graph_attrs}];")
    out.append('  node [fontname="Helvetica", fontsize=10];')
    out.append('  edge [fontname="Helvetica", fontsize=8, color="#4b5563"];')
    if devices:
        out.append("  // devices: " + ", ".join(f"{d}={c}" for d, c in devices.items()))
    if depth is not None:
        out.append(f"  // scopes collapsed at depth {depth}")

    def write(scope, indent):
        pad = "  " * indent
        for line in members.get(scope, ()):
            out.append(pad + line)
        for child in children.get(scope, ()):
            role = _role_of_parts(child)
            name = "/".join(child)
            out.append(f"{pad}subgraph {_q('cluster_' + name)} {{")
            out.append(f'{pad}  label={_q(child[-1])}; style="rounded,filled"; '
                       f'fillcolor="{_CLUSTER_FILL[role]}"; color="#9ca3af"; '
                       f'class="{role}"; tooltip={_q(name + "/")};')
            write(child, indent + 1)
            out.append(f"{pad}}}")

    write((), 1)

    # Edges (merged when several connect the same boxes).
    edges = collections.OrderedDict()
    for n in nodes:
        dst = drawn_as[n.name]
        for src, label in n.inputs:
            src_id = drawn_as.get(src)
            if src_id is None or src_id == dst:
                continue
            key = (src_id, dst, label if show_shapes else "", False, n.pruned)
            edges[key] = edges.get(key, 0) + 1
        for src in n.control:
            src_id = drawn_as.get(src)
            if src_id is None or src_id == dst:
                continue
            key = (src_id, dst, "", True, n.pruned)
            edges[key] = edges.get(key, 0) + 1
    for (src, dst, label, control, pruned), count in edges.items():
        attrs = []
        if label:
            attrs.append(f"label={_q(label if count == 1 else f'{label} x{count}')}")
        elif count > 1:
            attrs.append(f'label="x{count}"')
        if control:
            attrs.append('style=dashed, color="#6b7280", arrowhead=odot')
        elif pruned:
            attrs.append('style=dotted, color="#d1d5db", fontcolor="#9ca3af"')
        out.append(f"  {_q(src)} -> {_q(dst)}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------- render
_FORMATS = ("svg", "png", "pdf", "dot", "gv")
_INSTALL = ("Install Graphviz to write SVG/PNG files: `apt-get install graphviz` (Debian/"
            "Ubuntu), `brew install graphviz` (macOS) or see https://graphviz.org/download/. "
            "Writing a .dot file needs nothing.")


def render(graph_or_fetches, path, format=None, timeout=120, **to_dot_kwargs) -> str:
    """Write a drawing of ``graph_or_fetches`` to ``path``; returns ``path``.

    Args:
        graph_or_fetches: as for :func:`to_dot`.
        path: the file to write.
        format: ``"svg"``, ``"png"``, ``"pdf"`` or ``"dot"``; default from the extension
            of ``path`` (``.gv``/``.dot`` write DOT text).
        timeout: seconds allowed to Graphviz.
        **to_dot_kwargs: passed to :func:`to_dot` (``collapse``, ``session``, ...).

    Raises:
        GraphvizNotFoundError: SVG/PNG/PDF asked for and the ``dot`` program is not
            installed (the message says how to install it).
        ValueError: an unknown format, or ``graph_or_fetches`` is text (such as DOT)
            rather than a graph (the message quotes its first line only).
        RuntimeError: Graphviz failed (the first lines of its error output are
            included).
    """
    path = os.fspath(path)
    fmt = (format or os.path.splitext(path)[1].lstrip(".") or "").lower()
    if fmt not in _FORMATS:
        raise ValueError(f"Cannot tell the drawing format from {path!r}: use a .svg, .png, "
                         f".pdf or .dot file name or format= one of {', '.join(_FORMATS)}.")
    text = to_dot(graph_or_fetches, **to_dot_kwargs)
    if fmt in ("dot", "gv"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    program = shutil.which("dot")
    if program is None:
        raise GraphvizNotFoundError(f"The Graphviz 'dot' program was not found on PATH, so "
                                    f"{path!r} ({fmt}) cannot be drawn. {_INSTALL}")
    try:
        done = subprocess.run([program, f"-T{fmt}", "-o", path], input=text.encode("utf-8"),
                              capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"Graphviz took more than {timeout} s to draw {path!r}; try "
                           "collapse=1 for a smaller drawing.") from None
    except OSError as exc:
        raise GraphvizNotFoundError(f"The Graphviz 'dot' program ({program}) could not be "
                                    f"run: {exc}. {_INSTALL}") from None
    if done.returncode != 0:
        err = _cap_lines(done.stderr.decode("utf-8", "replace"))
        raise RuntimeError(f"Graphviz 'dot' failed (exit {done.returncode}) drawing {path!r}: "
                           f"{err or '(no error output)'}")
    return path
