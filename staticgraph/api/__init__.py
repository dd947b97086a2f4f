"""api: TF1 front-ends that compose ops but define no op type of their own:
initializers, variable scopes and ``get_variable``, losses, metrics, clipping."""

from . import clip_ops, initializers, losses, metrics, variable_scope

MODULES = (clip_ops, initializers, variable_scope, losses, metrics)
