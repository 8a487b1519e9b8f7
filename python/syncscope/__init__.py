"""syncscope in Python: record a block of your own program, assert it makes
no hidden syncs, and a pytest plugin that does so per test (docs/python.md).

    import syncscope

    with syncscope.watch() as w:
        train_step()
    for f in w.findings:
        print(f.category, f.where, f.count)

    with syncscope.assert_no_syncs():          # raises SyncsFound
        train_step()

    @syncscope.assert_no_syncs(categories="hidden-sync,pageable-copy")
    def test_step(): ...

The recorder (libsyncscope.so) is loaded into this process the first time it
is needed, the way `syncscope attach` loads it into another: its hooks go
into the import slots of the libraries already loaded (PyTorch's), a session
records into a temporary directory, and stopping it puts every slot back.
Under `syncscope run --dormant` the recorder is already there and is used as
is. A process recorded whole by plain `syncscope run` cannot also watch a
block: watch() says so.
"""
import ctypes
import json
import os
import shutil
import subprocess
import tempfile
import time

from . import _control, _native

__all__ = ["watch", "assert_no_syncs", "step", "Watch", "Finding", "SyncsFound", "SyncscopeError", "__version__"]
__version__ = "0.1.0"

DEFAULT_CATEGORIES = "hidden-sync"


class SyncscopeError(RuntimeError):
    """The recorder could not be loaded or could not record."""


class Finding:
    """One finding, with the fields of the JSON findings (docs/findings-schema.md)
    as attributes (`category`, `api`, `count`, `per_step`, ...), and `file`,
    `line`, `source`, `where` from its Python frame."""

    def __init__(self, data):
        self._data = data
        frame = data.get("user_frame") or {}
        self.file = frame.get("file")
        self.line = frame.get("line")
        self.source = (frame.get("source") or "").strip()
        self.where = "%s:%s" % (self.file, self.line) if self.file else (frame.get("function") or "unknown site")

    def __getattr__(self, name):
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_dict(self):
        return dict(self._data)

    def describe(self):
        text = "%s at %s: %s, %d call%s" % (self._data["category"], self.where, self._data.get("api_sequence") or
                                             self._data.get("api"), self._data["count"],
                                             "" if self._data["count"] == 1 else "s")
        if self.source:
            text += "  |  " + self.source
        return text

    def __repr__(self):
        return "<syncscope.Finding %s>" % self.describe()


class SyncsFound(AssertionError):
    """Raised by assert_no_syncs: the block made what it was asked not to."""

    def __init__(self, findings, categories):
        self.findings = findings
        lines = ["syncscope: %d finding%s of %s in the block:" % (len(findings), "" if len(findings) == 1 else "s",
                                                                 categories)]
        lines += ["  " + f.describe() for f in findings]
        super().__init__("\n".join(lines))


def _recorder_loaded():
    try:
        with open("/proc/self/maps") as maps:
            return any(line.rstrip().endswith("/libsyncscope.so") for line in maps)
    except OSError:
        return False


def _connect(timeout_s=5.0):
    """Connects to this process's recorder, loading it first when absent."""
    if not _recorder_loaded():
        try:
            ctypes.CDLL(_native.preload_library(), mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            raise SyncscopeError("cannot load the recorder: %s" % e) from None
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return _control.Connection()
        except OSError as e:  # the endpoint thread is starting
            if time.monotonic() > deadline:
                raise SyncscopeError(
                    "the recorder in this process does not answer (%s): is it recorded whole by `syncscope run`? "
                    "use `syncscope run --dormant`, or no launcher" % e) from None
            time.sleep(0.02)


_step_marker = None


def step():
    """Marks the end of a training step, as torch.optim's optimizer.step()
    does under `syncscope run` (docs/steps-and-phases.md): for loops without
    torch.optim. Does nothing when the recorder is not loaded."""
    global _step_marker
    if _step_marker is None:
        if not _recorder_loaded():
            return
        # PyDLL: called with the GIL held, so the marker carries this line.
        _step_marker = ctypes.PyDLL(_native.preload_library()).syncscope_optimizer_step
    _step_marker()


class Watch:
    """Records the calls made inside a `with` block (every thread's)."""

    def __init__(self, gpu_timeline=False, keep=None, report_args=()):
        self.gpu_timeline = gpu_timeline
        self.keep = keep  # a directory to keep the trace in; None: a temporary one, removed
        self.report_args = list(report_args)
        self.findings = []
        self.json = None
        self.gate_failed = False
        self.slots_restored = self.slots_left = 0
        self._dir = None
        self._connection = None

    def __enter__(self):
        self._dir = self.keep or tempfile.mkdtemp(prefix="syncscope-watch-")
        os.makedirs(self._dir, exist_ok=True)
        self._connection = _connect()
        fields = {"dir": os.path.abspath(self._dir)}
        if self.gpu_timeline:
            fields["gpu_timeline"] = "1"
        try:
            self._connection.request("start", **fields)
        except _control.ControlError as e:
            self._connection.close()
            raise SyncscopeError("cannot start recording: %s" % e) from None
        return self

    def __exit__(self, *exc):
        try:
            stopped = self._connection.request("stop")
            self.slots_restored = int(stopped.get("restored", 0))  # import slots put back (loaded late)
            self.slots_left = int(stopped.get("left", 0))  # changed by someone else meanwhile: left as found
        finally:
            self._connection.close()
        try:
            self._analyse()
        finally:
            if self.keep is None:
                shutil.rmtree(self._dir, ignore_errors=True)
        return False

    def _analyse(self):
        out = os.path.join(self._dir, "findings.json")
        # The block is all there is to it: no warm-up, every phase counts.
        cmd = [_native.command(), "report", self._dir, "--format", "json=" + out, "--warmup", "0",
               "--warmup-steps", "0", "--include-warmup", "--no-default-suppressions"] + self.report_args
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if not os.path.exists(out):
            raise SyncscopeError("the report could not be made (exit %d): %s" % (proc.returncode, proc.stderr.strip()))
        with open(out) as f:
            self.json = json.load(f)
        me = [p for p in self.json.get("processes", []) if p.get("pid") == os.getpid()]
        self.findings = [Finding(f) for p in me for f in p.get("findings", []) if not f.get("suppressed")]
        self.gate_failed = any(p.get("gate", {}).get("failed") for p in me)

    def report(self):
        """The text report of the block."""
        return "\n".join(f.describe() for f in self.findings) or "syncscope: no findings"


def watch(gpu_timeline=False, keep=None):
    """A context manager recording its block: `with syncscope.watch() as w:`;
    then `w.findings`, `w.json`, `w.report()`."""
    return Watch(gpu_timeline=gpu_timeline, keep=keep)


class assert_no_syncs:
    """Context manager and decorator: raises SyncsFound, listing each offending
    line and its count, when the block makes findings of `categories` (comma
    list or "all"; default hidden syncs) beyond `budget` ("hidden-sync=2" or
    "hidden-sync=1/step", as `syncscope run --budget`), after `suppressions`
    (a file of category:pattern rules)."""

    def __init__(self, categories=DEFAULT_CATEGORIES, budget=None, suppressions=None):
        self.categories = categories
        self.args = ["--fail-on", categories]
        for b in ([budget] if isinstance(budget, str) else budget or []):
            self.args += ["--budget", b]
        for s in ([suppressions] if isinstance(suppressions, str) else suppressions or []):
            self.args += ["--suppressions", s]
        self._watch = None

    def __enter__(self):
        self._watch = Watch(report_args=self.args).__enter__()
        return self._watch

    def __exit__(self, exc_type, exc, tb):
        self._watch.__exit__(exc_type, exc, tb)
        if exc_type is None and self._watch.gate_failed:
            wanted = None if self.categories == "all" else set(self.categories.split(","))
            offending = [f for f in self._watch.findings if wanted is None or f.category in wanted]
            raise SyncsFound(offending, self.categories)
        return False

    def __call__(self, function):
        import functools

        @functools.wraps(function)
        def guarded(*args, **kwargs):
            guard = assert_no_syncs.__new__(assert_no_syncs)  # a fresh guard per call, same settings
            guard.__dict__.update(self.__dict__)
            with guard:
                return function(*args, **kwargs)

        return guarded
