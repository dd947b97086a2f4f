"""``tf.compat.v1``: the whole staticgraph API under TF1's compatibility path.

``import staticgraph.compat.v1 as tf`` and ``staticgraph.compat.v1.placeholder``
both work, so scripts written against ``tensorflow.compat.v1`` run unchanged.
"""

import sys as _sys

from .. import __name__ as _root_name

v1 = _sys.modules[_root_name]
_sys.modules[__name__ + ".v1"] = v1
