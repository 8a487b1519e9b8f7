"""A stand-in for PyTorch in the end-to-end tests (no torch on CI machines):
only what syncscope's sitecustomize uses, torch.optim's optimizer-step hooks
and torch.autograd.backward, and a device scalar with torch.isnan and
torch.isinf for the stand-in of transformers' Trainer. As in PyTorch,
importing torch imports torch.autograd, and Tensor.backward calls
torch.autograd.backward through the module attribute."""
from . import autograd  # noqa: F401
from ._device_scalar import DeviceScalar, isinf, isnan  # noqa: F401
from ._tensor import Tensor  # noqa: F401
