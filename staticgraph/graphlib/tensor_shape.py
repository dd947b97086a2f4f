"""Static shapes that may be partly unknown: ``TensorShape`` and ``Dimension``."""

from __future__ import annotations

__all__ = ["Dimension", "TensorShape", "as_shape", "unknown_shape", "broadcast_static"]


class Dimension:
    """One dimension of a static shape; ``value`` is an int or None (unknown)."""

    __slots__ = ("value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            if hasattr(value, "__index__"):
                value = int(value.__index__())
            else:
                try:
                    number = int(value)
                except (TypeError, ValueError):
                    raise TypeError(f"Dimension value must be an int or None, got "
                                    f"{value!r}") from None
                if not isinstance(value, (str, bytes)) and number != value:
                    raise ValueError(f"Ambiguous dimension: {value}")
                value = number
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
        self.value = value

    def __int__(self):
        if self.value is None:
            raise TypeError("Cannot convert an unknown Dimension to an int.")
        return self.value

    __index__ = __int__

    def __eq__(self, other):
        other = other.value if isinstance(other, Dimension) else other
        return self.value == other

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Dimension({self.value})"

    def __str__(self):
        return "?" if self.value is None else str(self.value)

    def is_compatible_with(self, other) -> bool:
        """True when both are known and equal, or either is unknown."""
        other = Dimension(other).value
        return self.value is None or other is None or self.value == other

    def merge_with(self, other) -> "Dimension":
        """The more specific of two compatible dimensions; ValueError otherwise."""
        other = Dimension(other).value
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")
        return Dimension(self.value if self.value is not None else other)

    def _arith(self, other, fn):
        other = Dimension(other).value
        if self.value is None or other is None:
            return Dimension(None)
        return Dimension(fn(self.value, other))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)


class TensorShape:
    """A static shape: unknown rank, or a list of dimensions each int or None.

    ``TensorShape(None)`` has unknown rank; ``TensorShape([None, 784])`` has rank 2
    with an unknown first dimension. Indexing with an int gives a :class:`Dimension`
    (TF1's ``shape[1].value``), with a slice another TensorShape.
    """

    __slots__ = ("_dims",)

    def __init__(self, dims=None):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                items = list(dims)
            except TypeError:
                items = [dims]
            self._dims = tuple(Dimension(d).value for d in items)

    @classmethod
    def _from_tuple(cls, dims):
        shape = cls.__new__(cls)
        shape._dims = dims
        return shape

    @property
    def dims(self):
        """List of :class:`Dimension`, or None when the rank is unknown."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    @property
    def rank(self):
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def raw(self):
        """The dimensions as a tuple of int/None, or None for unknown rank."""
        return self._dims

    def as_list(self):
        """The dimensions as a list of int/None; ValueError when the rank is unknown."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        """True when the rank and every dimension are known."""
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self):
        """Raise ValueError unless fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def num_elements(self):
        """The number of elements, or None when not fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def is_compatible_with(self, other) -> bool:
        """True when some fully defined shape matches both."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def merge_with(self, other) -> "TensorShape":
        """The most specific shape compatible with both; ValueError when incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._from_tuple(
            tuple(a if a is not None else b for a, b in zip(self._dims, other._dims)))

    def concatenate(self, other) -> "TensorShape":
        """This shape's dimensions followed by ``other``'s."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape._from_tuple(self._dims + other._dims)

    def with_rank(self, rank: int) -> "TensorShape":
        """This shape with its rank known to be ``rank``; ValueError if it differs."""
        if self._dims is None:
            return TensorShape([None] * rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> "TensorShape":
        """This shape, checked to have at least ``rank`` dimensions."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of Shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(Dimension(d) for d in self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            if isinstance(key, slice):
                return TensorShape(None)
            return Dimension(None)
        if isinstance(key, slice):
            return TensorShape._from_tuple(self._dims[key])
        return Dimension(self._dims[key])

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"

    def as_proto_string(self) -> str:
        """TF1's bracket form used in error messages, e.g. ``[?,784]``."""
        if self._dims is None:
            return "<unknown>"
        return "[" + ",".join("?" if d is None else str(d) for d in self._dims) + "]"


def as_shape(shape) -> TensorShape:
    """Convert a list, tuple, None or TensorShape to a :class:`TensorShape`."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


def unknown_shape(rank=None) -> TensorShape:
    """A shape of unknown rank, or of known rank with all dimensions unknown."""
    return TensorShape(None if rank is None else [None] * rank)


def broadcast_static(a: TensorShape, b: TensorShape) -> TensorShape:
    """Numpy broadcasting of two static shapes.

    Raises:
        ValueError: when two known dimensions differ and neither is 1.
    """
    if a._dims is None or b._dims is None:
        return TensorShape(None)
    x, y = a._dims, b._dims
    if len(x) < len(y):
        x = (1,) * (len(y) - len(x)) + x
    elif len(y) < len(x):
        y = (1,) * (len(x) - len(y)) + y
    out = []
    for p, q in zip(x, y):
        if p == 1:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None:
            out.append(q)
        elif q is None or p == q:
            out.append(p)
        else:
            raise ValueError(f"Dimensions must be equal, but are {p} and {q}")
    return TensorShape._from_tuple(tuple(out))
