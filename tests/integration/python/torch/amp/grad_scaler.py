"""Stand-in for torch.amp.grad_scaler (PyTorch 2.11): fp16's GradScaler,
shaped as the real one is where syncscope looks. Its launching operations
are the real one's seven (the scale's multiply; the inverse scale's double,
reciprocal and float; found_inf's fill; the unscale; the scale update),
each some Python work and a kernel; its read of found_inf is a generator
expression inside GradScaler._maybe_opt_step, as in PyTorch, so that the
known site torch-grad-scaler-found-inf (sites/known_sites.json) names it.
For issue 27's drop-read-back test (scaler_loop.py)."""
import ctypes
import time

from .._device_scalar import DeviceScalar, _runtime


def _busy(us):
    end = time.perf_counter() + us / 1e6
    while time.perf_counter() < end:
        pass


class GradScaler:
    def __init__(self, stream, device, host, operation_us):
        self.stream, self.device, self.host, self.operation_us = stream, device, host, operation_us
        self._per_optimizer_states = {}

    def _operation(self):
        _busy(self.operation_us)
        _runtime().cudaMemsetAsync(self.device, 0, ctypes.c_size_t(64), self.stream)

    def scale(self, loss):
        self._operation()  # outputs * self._scale
        return loss

    def unscale_(self, optimizer):
        for _ in range(4):  # double(), reciprocal(), float(); torch.full() for found_inf
            self._operation()
        self._operation()  # torch._amp_foreach_non_finite_check_and_unscale_
        self._per_optimizer_states[id(optimizer)] = {
            "found_inf_per_device": {"cuda:0": DeviceScalar(self.stream, self.device, self.host)}}

    def _maybe_opt_step(self, optimizer, optimizer_state):
        retval = None
        found_inf = any(
            v.item() for v in optimizer_state["found_inf_per_device"].values()
        )
        if not found_inf:
            retval = optimizer.step()
        return retval

    def step(self, optimizer):
        self.unscale_(optimizer)
        return self._maybe_opt_step(optimizer, self._per_optimizer_states[id(optimizer)])

    def update(self):
        self._operation()  # torch._amp_update_scale_
        self._per_optimizer_states = {}
