"""A Saver's settings: :class:`SaverDef` (TF1's proto, as JSON values), the checks of
``max_to_keep`` and ``keep_checkpoint_every_n_hours``, and the map from checkpoint
names to the variables a Saver saves.
"""

from __future__ import annotations

import math
import numbers

from ..ops.state.variables import storage_tensor

__all__ = ["SaverDef", "checked_max_to_keep", "checked_hours", "variable_tensor",
           "variables_by_checkpoint_name"]


class SaverDef:
    """A Saver's settings (TF1's ``SaverDef`` proto), as plain JSON-friendly values.

    ``variables`` maps checkpoint names to variable op names, so a Saver rebuilt from
    a meta graph saves the same variables under the same names.
    """

    V1, V2 = 1, 2
    _FIELDS = ("filename_tensor_name", "save_tensor_name", "restore_op_name", "max_to_keep",
               "sharded", "keep_checkpoint_every_n_hours", "version", "variables")

    def __init__(self, filename_tensor_name="save/Const:0",
                 save_tensor_name="save/control_dependency:0",
                 restore_op_name="save/restore_all", max_to_keep=5, sharded=False,
                 keep_checkpoint_every_n_hours=10000.0, version=2, variables=None):
        self.filename_tensor_name = filename_tensor_name
        self.save_tensor_name = save_tensor_name
        self.restore_op_name = restore_op_name
        self.max_to_keep = max_to_keep
        self.sharded = sharded
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self.version = version
        self.variables = dict(variables or {})

    def to_dict(self):
        """The settings as a dict of JSON values."""
        return {f: getattr(self, f) for f in self._FIELDS}

    @classmethod
    def from_dict(cls, data):
        """Rebuild from :meth:`to_dict`'s output (unknown keys are refused)."""
        unknown = set(data) - set(cls._FIELDS)
        if unknown:
            raise ValueError(f"Unknown SaverDef fields: {sorted(unknown)}")
        return cls(**data)

    def __eq__(self, other):
        return isinstance(other, SaverDef) and self.to_dict() == other.to_dict()

    def __repr__(self):
        return f"SaverDef({self.to_dict()!r})"


def checked_max_to_keep(value, where):
    """``max_to_keep`` as an int >= 0 (None means 0: keep every checkpoint)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where} must be an int or None, got {value!r:.40}")
    if value < 0:
        raise ValueError(f"{where} must be >= 0 (0 or None keeps every checkpoint), got "
                         f"{int(value)}: a negative value would delete each checkpoint as "
                         f"soon as it is written")
    return int(value)


def checked_hours(value, where):
    """``keep_checkpoint_every_n_hours`` as a float (not NaN)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} must be a number, got {value!r:.40}")
    if math.isnan(value):
        raise ValueError(f"{where} must be a number, got NaN")
    return float(value)


def variable_tensor(var):
    """The ``VariableV2`` output tensor of a Variable (or of a variable tensor)."""
    tensor = storage_tensor(var)
    if tensor is None:
        raise TypeError(f"Variable to save is not a Variable: {var!r}")
    return tensor


def variables_by_checkpoint_name(var_list):
    """``{checkpoint name: variable tensor}`` from a list or dict of variables."""
    if isinstance(var_list, dict):
        out = {}
        for name, var in var_list.items():
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be strings, got {name!r}")
            out[name] = variable_tensor(var)
        return out
    out = {}
    for var in var_list:
        tensor = variable_tensor(var)
        name = tensor.op.name
        if name in out:
            if out[name] is tensor:
                continue  # the same variable listed twice (e.g. in two collections)
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = tensor
    return out
