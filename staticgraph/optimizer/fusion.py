"""Fusion (being written)."""


def fuse(working, pass_name="fuse"):
    """Fuse op patterns into single fused ops; returns fusions made."""
    return 0
