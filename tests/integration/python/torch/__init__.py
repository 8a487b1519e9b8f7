"""A stand-in for PyTorch in the end-to-end tests (no torch on CI machines):
only torch.optim's optimizer-step hooks, which syncscope's sitecustomize uses."""
