"""Per-op test cases, collected from every module in this folder.

Each module defines ``CASES``, a list of :class:`Case`. The generic tests in
``tests/ops/test_registry.py`` run every case three ways (kernel against an
independent numpy reference, static shape/dtype against the kernel's result,
unknown dimensions) and check ``bad`` shapes are refused while declaring. Every
registered op type must appear in at least one case.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import Any, Callable, Sequence

import numpy as np

__all__ = ["Case", "all_cases", "rng"]


@dataclasses.dataclass
class Case:
    """One test case of one op type.

    Attributes:
        op_type: the registered op type this case exercises (the built graph must
            contain an op of that type).
        build: called with one placeholder tensor per entry of ``inputs``; returns
            the tensor (or list of tensors) to fetch. Non-tensor arguments (axes,
            shapes, attributes) are closed over.
        inputs: the numpy values fed to the placeholders (their dtypes set the
            placeholders' dtypes).
        expected: numpy reference written independently of the kernel, called with
            ``inputs``; returns an array or a list of arrays like ``build``. None
            when ``check`` is given instead.
        check: optional ``check(outputs, inputs)`` asserting properties (random ops).
        bad: list of input shape lists that must raise ValueError while declaring
            (e.g. ``[[(2, 3), (4, 5)]]`` for matmul); dtypes as in ``inputs``.
        bad_dtypes: list of input dtype lists that must raise TypeError while declaring.
        dynamic: also run with unknown dimensions and unknown rank (False for ops whose
            static output needs known input shapes, e.g. a known depth).
        rtol, atol: tolerances for ``expected``.
        id: readable test id suffix.
        grad: True to check the op's gradient against central finite differences in
            float64 (float inputs are fed as float64); ``"none"`` to assert that
            ``tf.gradients`` returns None for the inputs (ops TF1 declares
            not differentiable, such as StopGradient); False where no check is
            meaningful (random ops, inputs at kinks, huge inputs).
        grad_inputs: indices of the inputs to differentiate (default: all float ones).
        grad2: also check second derivatives (for smooth ops).
        grad_rtol, grad_atol: tolerances of the gradient checks.
        onnx_rtol, onnx_atol: tolerances of onnxruntime's result against the numpy
            kernel's (default: by dtype, see ``tests/export/test_onnx_ops.py``).
        ort_differs: why onnxruntime's result legitimately differs from the kernel's
            (a known onnxruntime deviation from the ONNX spec); the exported model is
            then checked with ``onnx.reference`` instead, as the second witness.
    """

    op_type: str
    build: Callable[..., Any]
    inputs: Sequence[np.ndarray]
    expected: Callable[..., Any] | None = None
    check: Callable[..., Any] | None = None
    bad: Sequence[Sequence[tuple]] = ()
    bad_dtypes: Sequence[Sequence[Any]] = ()
    dynamic: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    id: str = ""
    grad: bool | str = True
    grad_inputs: Sequence[int] | None = None
    grad2: bool = False
    grad_rtol: float = 1e-4
    grad_atol: float = 1e-6
    onnx_rtol: float | None = None
    onnx_atol: float | None = None
    ort_differs: str = ""

    def __post_init__(self):
        self.inputs = [np.asarray(v) for v in self.inputs]

    @property
    def test_id(self) -> str:
        return f"{self.op_type}-{self.id}" if self.id else self.op_type


def rng(seed=0) -> np.random.Generator:
    """A seeded generator for case inputs."""
    return np.random.default_rng(seed)


def all_cases() -> list[Case]:
    """Every case from every module of this package, in module order."""
    cases = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        cases.extend(getattr(module, "CASES", []))
    return cases
