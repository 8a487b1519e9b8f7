"""Stand-in for torch.amp: the GradScaler (grad_scaler.py)."""
from .grad_scaler import GradScaler  # noqa: F401
