"""autodiff: symbolic differentiation. ``gradients`` and ``hessians`` walk the graph and ask
each op's definition for its gradient rule; no op is known here by name."""

from .gradients import gradients, hessians

__all__ = ["gradients", "hessians"]
