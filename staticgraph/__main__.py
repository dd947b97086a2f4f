"""Command line: ``python -m staticgraph show FILE [-o OUT] [--format svg|png|dot]
[--summary] [--collapse N]``.

``show`` draws a saved graph (a staticgraph JSON graph file, see
``export.save_graph``) or an ONNX model (``.onnx``, read with the ``onnx``
package) to SVG (default ``FILE`` with a ``.svg`` suffix), PNG or DOT. Without
Graphviz an SVG/PNG request falls back to a ``.dot`` file, with a message.
``--summary`` prints the table of ops, variables/initializers and inputs.

Exit codes: 0 done (also after the DOT fallback), 1 the file is missing or cannot
be read, 2 bad arguments, 3 drawing failed.
"""

from __future__ import annotations

import argparse
import os
import sys

EXIT_OK, EXIT_UNREADABLE, EXIT_USAGE, EXIT_DRAW = 0, 1, 2, 3


class _Unreadable(Exception):
    pass


def _parser():
    p = argparse.ArgumentParser(prog="python -m staticgraph",
                                description="Tools for staticgraph graphs.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    show = sub.add_parser("show", help="draw a graph file (JSON) or an ONNX model",
                          description="Draw a staticgraph graph file (.json) or an ONNX "
                                      "model (.onnx) with Graphviz.")
    show.add_argument("file", metavar="FILE", help="a .json graph file or a .onnx model")
    show.add_argument("-o", "--output", metavar="OUT",
                      help="output file (default: FILE with a .svg, .png or .dot suffix)")
    show.add_argument("--format", choices=("svg", "png", "dot"),
                      help="output format (default: from OUT's extension, else svg)")
    show.add_argument("--summary", action="store_true",
                      help="print a table of ops, variables and inputs")
    show.add_argument("--collapse", type=int, metavar="N",
                      help="draw name scopes at depth N as single boxes")
    show.add_argument("--no-draw", action="store_true", help="only print the summary")
    return p


def _is_onnx_file(path):
    if path.lower().endswith(".onnx"):
        return True
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip()
    except OSError:
        return False
    return not head.startswith(b"{")


def load_model(path):
    """A staticgraph Graph (JSON graph file) or an ``onnx.ModelProto`` (ONNX file).

    Raises:
        _Unreadable: with a message for missing, unreadable or invalid files.
    """
    if not os.path.exists(path):
        raise _Unreadable(f"no such file: {path}")
    if os.path.isdir(path):
        raise _Unreadable(f"{path} is a directory, not a graph file")
    if not os.access(path, os.R_OK):
        raise _Unreadable(f"cannot read {path}: permission denied")
    if _is_onnx_file(path):
        try:
            import onnx
        except ImportError:
            raise _Unreadable("reading ONNX models needs the onnx package "
                              "(pip install onnx)") from None
        try:
            model = onnx.load(path)
        except Exception as exc:  # DecodeError and friends: not a valid model
            raise _Unreadable(f"{path} is not a valid ONNX model: {exc}") from None
        if not model.graph.node and not model.graph.input:
            raise _Unreadable(f"{path} is not a valid ONNX model (no graph)")
        return model
    from .export import load_graph
    try:
        return load_graph(path)
    except Exception as exc:  # NotFound/DataLoss/InvalidGraphDef: all say what is wrong
        msg = getattr(exc, "message", None) or str(exc)
        raise _Unreadable(f"cannot read graph file {path}: {msg}") from None


def _show(args, out, err):
    from .export import GraphvizNotFoundError, render
    from .export.summary import summary
    try:
        model = load_model(args.file)
    except _Unreadable as exc:
        print(f"error: {exc}", file=err)
        return EXIT_UNREADABLE
    if args.collapse is not None and args.collapse < 1:
        print("error: --collapse needs a depth of 1 or more", file=err)
        return EXIT_USAGE
    if args.summary:
        print(summary(model), file=out)
    if args.no_draw:
        return EXIT_OK
    fmt = args.format
    target = args.output
    if fmt is None:
        ext = os.path.splitext(target)[1].lstrip(".").lower() if target else ""
        fmt = ext if ext in ("svg", "png", "dot") else "svg"
    if target is None:
        target = os.path.splitext(args.file)[0] + "." + fmt
    kwargs = {"collapse": args.collapse}
    try:
        try:
            render(model, target, format=fmt, **kwargs)
        except GraphvizNotFoundError:
            dot_target = os.path.splitext(target)[0] + ".dot"
            render(model, dot_target, format="dot", **kwargs)
            print(f"Graphviz's 'dot' program is not installed, so {fmt.upper()} cannot be "
                  f"drawn; wrote {dot_target} instead. Install Graphviz (apt-get install "
                  "graphviz / brew install graphviz / https://graphviz.org/download/) and "
                  f"run: dot -T{fmt} {dot_target} -o {target}", file=err)
            return EXIT_OK
    except OSError as exc:
        print(f"error: cannot write {exc.filename or target}: {exc.strerror or exc}", file=err)
        return EXIT_DRAW
    except (RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=err)
        return EXIT_DRAW
    print(f"wrote {target}", file=out)
    return EXIT_OK


def main(argv=None, out=None, err=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse printed the usage and the problem
        return EXIT_USAGE if exc.code else EXIT_OK
    if args.command != "show":
        parser.print_help(err)
        return EXIT_USAGE
    return _show(args, out, err)


if __name__ == "__main__":
    sys.exit(main())
