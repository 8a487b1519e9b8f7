"""syncscope's Python start-up hook: marks every optimizer step and backward pass.

`syncscope run` puts this folder first on PYTHONPATH. It imports nothing and
costs nothing until the program itself imports torch; then it
- registers one global optimizer-step post-hook (torch.optim) that calls
  libsyncscope.so's `syncscope_optimizer_step`;
- wraps `torch.autograd.backward` (which `Tensor.backward` calls through the
  module attribute) so that each outermost call first calls
  `syncscope_backward_begin`.
Both go through ctypes.PyDLL, so the GIL stays held and the recorder sees the
`optimizer.step()` or `loss.backward()` line. On Python 3.12+, the first few
markers also watch the lines of the functions that made them (the training
loop, and around it; not PyTorch's, not the standard library's) with
sys.monitoring, so that the analysis knows where a statement such as
print(loss) begins and ends (_LineWatch). The analysis takes those calls
as the training loop's step boundaries, which the program's own structure
defines better than any pattern of CUDA calls; the backward markers make the
steps of a loop that updates by hand, without torch.optim.

Then it runs the sitecustomize module it shadows, if any, as Python would
have. SYNCSCOPE_STEP_MARKERS=0 turns the markers off, SYNCSCOPE_LINE_EVENTS=0
the line watch alone (=all: libraries' loops too). Nothing here may change
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


class _LineWatch:
    """Watches the lines of the functions that step the optimizer.

    sys.monitoring (Python 3.12+) calls libsyncscope.so's builtin for each
    LINE of a watched code object and each return or yield from it; the
    recorder makes each a syncscope_python_line event. Watched: the code
    objects of the user's own files on the stack of the first few step
    markers (a loop at module level, a train() function, the helper that
    runs a step), then of every LOOK_EVERY-th one (a loop that takes over
    later: a second training stage, another thread's loop), at most
    MAX_CODES. The loop's statements then have a
    start and an end in the trace: what "print every N steps" would remove
    from a step is the whole statement, its Python work too
    (docs/what-if.md). A library's loop (Lightning's, Trainer's) is watched
    only with SYNCSCOPE_LINE_EVENTS=all: Lightning's makes about 1,150 line
    events a step (an H200, lightning 2.6), and the analysis uses a
    library's line only where it is the line that syncs.
    """

    MARKERS_LOOKED_AT = 4
    LOOK_EVERY = 64  # a look walks a few frames: every 64th step it costs well under 1 µs a step
    MAX_CODES = 32

    def __init__(self):
        self._off = False  # no sys.monitoring, its tool ids taken, or a look failed
        self._markers = 0
        self._monitoring = None
        self._tool = None
        self._codes = set()
        self._framework = None
        self._libraries = os.environ.get("SYNCSCOPE_LINE_EVENTS", "1") == "all"

    def look(self, frame):
        self._markers += 1
        if self._off or (self._markers > self.MARKERS_LOOKED_AT and self._markers % self.LOOK_EVERY):
            return
        try:
            if self._tool is None and not self._start():
                self._off = True
                return
            self._watch(frame)
        except Exception:  # never break the program's step
            self._off = True

    def _start(self):
        monitoring = getattr(sys, "monitoring", None)
        if monitoring is None or os.environ.get("SYNCSCOPE_LINE_EVENTS", "1") == "0":
            return False
        import ctypes
        try:
            make = ctypes.PyDLL(None).syncscope_python_line_callback
        except AttributeError:
            return False
        make.restype = ctypes.py_object
        make.argtypes = [ctypes.py_object]
        try:
            callback = make(monitoring.DISABLE)
        except ValueError:  # NULL: the preload found no Python API
            return False
        for tool in (4, 3):  # not the debugger's, coverage's, profiler's or optimizer's ids
            try:
                monitoring.use_tool_id(tool, "syncscope")
            except ValueError:  # taken by another tool
                continue
            events = monitoring.events
            for event in (events.LINE, events.PY_RETURN, events.PY_YIELD):
                monitoring.register_callback(tool, event, callback)
            self._monitoring, self._tool = monitoring, tool
            self._framework = self._framework_paths()
            return True
        return False

    @staticmethod
    def _framework_paths():
        import sysconfig
        paths = [_HERE]
        torch = sys.modules.get("torch")
        if torch is not None and getattr(torch, "__file__", None):
            paths.append(os.path.dirname(os.path.abspath(torch.__file__)))
        stdlib = []
        for key in ("stdlib", "platstdlib"):
            path = sysconfig.get_paths().get(key)
            if path:
                stdlib.append(os.path.join(os.path.abspath(path), ""))
        return tuple(os.path.join(p, "") for p in paths), tuple(stdlib)

    def _is_watched(self, file):
        """The user's own code; with SYNCSCOPE_LINE_EVENTS=all, libraries' too."""
        if file.startswith("<"):  # frozen modules, generated code
            return False
        own, stdlib = self._framework
        path = os.path.abspath(file)
        if path.startswith(own):
            return False
        # The standard library's folder may hold the installed packages too
        # (a venv's lib/python3.12/site-packages): those are libraries.
        parts = path.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts:
            return self._libraries
        return not path.startswith(stdlib)

    def _watch(self, frame):
        events = self._monitoring.events
        wanted = events.LINE | events.PY_RETURN | events.PY_YIELD
        while frame is not None and len(self._codes) < self.MAX_CODES:
            code = frame.f_code
            if code not in self._codes and self._is_watched(code.co_filename):
                self._monitoring.set_local_events(self._tool, code, wanted)
                self._codes.add(code)
            frame = frame.f_back


_line_watch = _LineWatch()


def _register_optimizer_hook(module):
    register = getattr(module, "register_optimizer_step_post_hook", None)
    mark = _marker("syncscope_optimizer_step") if register is not None else None
    if mark is None:
        return

    def syncscope_optimizer_step(optimizer, args, kwargs):
        mark()
        _line_watch.look(sys._getframe(1))

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
                _line_watch.look(sys._getframe(1))
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
