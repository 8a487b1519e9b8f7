"""syncscope's Python start-up hook: marks every torch.optim optimizer step.

`syncscope run` puts this folder first on PYTHONPATH. It imports nothing and
costs nothing until the program itself imports torch.optim; then it
registers one global optimizer-step post-hook that calls
libsyncscope.so's `syncscope_optimizer_step` (through ctypes.PyDLL, so the
GIL stays held and the recorder sees the `optimizer.step()` line). The
analysis takes those calls as the training loop's step boundaries, which the
program's own structure defines better than any pattern of CUDA calls.

Then it runs the sitecustomize module it shadows, if any, as Python would
have. SYNCSCOPE_STEP_MARKERS=0 turns the marker off.
"""
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_WATCHED = "torch.optim.optimizer"


def _marker():
    try:
        import ctypes
        mark = ctypes.PyDLL(None).syncscope_optimizer_step  # the preload's export
    except (AttributeError, OSError, ImportError):
        return None  # not under syncscope's preload
    mark.restype = None
    mark.argtypes = []
    return mark


def _register(module):
    register = getattr(module, "register_optimizer_step_post_hook", None)
    mark = _marker() if register is not None else None
    if mark is None:
        return

    def syncscope_optimizer_step(optimizer, args, kwargs):
        mark()

    register(syncscope_optimizer_step)


class _OptimizerImportWatcher:
    """A meta-path finder that lets the real finders find torch.optim.optimizer
    and runs _register once its module has executed."""

    def find_spec(self, name, path=None, target=None):
        if name != _WATCHED:
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
        self._wrap(spec.loader)
        sys.meta_path[:] = [f for f in sys.meta_path if f is not self]  # once is enough
        return spec

    @staticmethod
    def _wrap(loader):
        exec_module = loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            try:
                _register(module)
            except Exception:  # never break the program's import
                pass

        try:
            loader.exec_module = exec_then_register
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


if os.environ.get("SYNCSCOPE_STEP_MARKERS", "1") != "0" and _WATCHED not in sys.modules:
    sys.meta_path.insert(0, _OptimizerImportWatcher())
try:
    _run_shadowed_sitecustomize()
except Exception as error:  # as Python reports a failing sitecustomize, and goes on
    print(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(error).__name__}: {error}",
          file=sys.stderr)
