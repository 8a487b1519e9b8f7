"""syncscope's Python start-up hook: marks every optimizer step and backward pass.

`syncscope run` puts this folder first on PYTHONPATH. It imports nothing and
costs nothing until the program itself imports torch; then it
- registers one global optimizer-step post-hook (torch.optim) that calls
  libsyncscope.so's `syncscope_optimizer_step`;
- wraps `torch.autograd.backward` (which `Tensor.backward` calls through the
  module attribute) so that each outermost call first calls
  `syncscope_backward_begin`.
Both go through ctypes.PyDLL, so the GIL stays held and the recorder sees the
`optimizer.step()` or `loss.backward()` line. The analysis takes those calls
as the training loop's step boundaries, which the program's own structure
defines better than any pattern of CUDA calls; the backward markers make the
steps of a loop that updates by hand, without torch.optim.

Then it runs the sitecustomize module it shadows, if any, as Python would
have. SYNCSCOPE_STEP_MARKERS=0 turns the markers off. Nothing here may change
what the program does: a marker that cannot be set up is left out.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _marker(name):
    try:
        import ctypes
        mark = getattr(ctypes.PyDLL(None), name)  # the preload's export
    except (AttributeError, OSError, ImportError):
        return None  # not under syncscope's preload
    mark.restype = None
    mark.argtypes = []
    return mark


def _register_optimizer_hook(module):
    register = getattr(module, "register_optimizer_step_post_hook", None)
    mark = _marker("syncscope_optimizer_step") if register is not None else None
    if mark is None:
        return

    def syncscope_optimizer_step(optimizer, args, kwargs):
        mark()

    register(syncscope_optimizer_step)


def _wrap_backward(module):
    backward = getattr(module, "backward", None)
    if not callable(backward) or getattr(backward, "_syncscope_marked", False):
        return
    mark = _marker("syncscope_backward_begin")
    if mark is None:
        return
    import functools

    # Backward calls in progress, over all threads: a backward() made inside
    # another (reentrant checkpointing calls it from autograd's own thread
    # for each segment) is part of that pass, not a pass of the loop.
    running = [0]

    @functools.wraps(backward)
    def syncscope_backward(*args, **kwargs):
        if running[0] == 0:
            try:
                mark()
            except Exception:  # never break the program's backward
                pass
        running[0] += 1
        try:
            return backward(*args, **kwargs)
        finally:
            running[0] -= 1

    syncscope_backward._syncscope_marked = True
    module.backward = syncscope_backward


# The modules watched, and what runs once each has executed.
_WATCHED = {
    "torch.optim.optimizer": _register_optimizer_hook,
    "torch.autograd": _wrap_backward,
}


class _TorchImportWatcher:
    """A meta-path finder that lets the real finders find the watched modules
    and runs their action once each module has executed."""

    def __init__(self, watched):
        self._watched = dict(watched)

    def find_spec(self, name, path=None, target=None):
        action = self._watched.get(name)
        if action is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        self._wrap(spec.loader, action)
        del self._watched[name]
        if not self._watched:  # once each is enough
            sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
        return spec

    @staticmethod
    def _wrap(loader, action):
        exec_module = loader.exec_module

        def exec_then_act(module):
            exec_module(module)
            try:
                action(module)
            except Exception:  # never break the program's import
                pass

        try:
            loader.exec_module = exec_then_act
        except (AttributeError, TypeError):
            pass


def _run_shadowed_sitecustomize():
    import importlib.machinery
    import importlib.util

    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


if os.environ.get("SYNCSCOPE_STEP_MARKERS", "1") != "0":
    _watched = {name: action for name, action in _WATCHED.items() if name not in sys.modules}
    if _watched:
        sys.meta_path.insert(0, _TorchImportWatcher(_watched))
try:
    _run_shadowed_sitecustomize()
except Exception as error:  # as Python reports a failing sitecustomize, and goes on
    print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(error).__name__}: {error}",
          file=sys.stderr)
