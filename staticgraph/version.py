"""staticgraph's version, in the base layer so that any module may read it.

The package root re-exports it as ``staticgraph.__version__``; setup.cfg reads it
from here (``attr: staticgraph.version.__version__``) without importing the package.
"""

__version__ = "0.1.0"
