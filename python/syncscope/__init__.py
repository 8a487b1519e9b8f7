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
records into a temporary directory, and stopping it puts every slot back and
ends the recorder's threads. Under `syncscope run --dormant` the recorder is
already there and is used as is. A watch inside another watch, or in a
process recorded whole by plain `syncscope run`, reports the stretch of that
recording its block spans (docs/python.md).
"""
import ctypes
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

from . import _control, _native

__all__ = ["watch", "assert_no_syncs", "step", "Watch", "Finding", "SyncsFound", "SyncscopeError", "__version__"]
__version__ = "0.1.0"

DEFAULT_CATEGORIES = "hidden-sync"


class SyncscopeError(RuntimeError):
    """The recorder could not be loaded or could not record."""


class Finding:
    """One finding, with the fields of the JSON findings (docs/findings-schema.md)
    as attributes (`category`, `api`, `count`, `per_step`, `operation`, ...),
    and `file`, `line`, `source`, `where` of the line that syncs (`sync_frame`:
    inside a library such as transformers when the loop is the library's),
    `library` (that library's package, or None) and `reached_from`, the
    user's line that reached it (None when it is the same line)."""

    def __init__(self, data):
        self._data = data
        user = data.get("user_frame") or {}
        frame = data.get("sync_frame") or user
        self.file = frame.get("file")
        self.line = frame.get("line")
        self.source = (frame.get("source") or "").strip()
        self.library = frame.get("library")
        self.where = "%s:%s" % (self.file, self.line) if self.file else (frame.get("function") or "unknown site")
        self.reached_from = None
        if self.library and user.get("file"):
            self.reached_from = "%s:%s" % (user.get("file"), user.get("line"))

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
        if self._data.get("phase") == "steady" and self._data.get("per_step"):
            text += " (%.2g per step)" % self._data["per_step"]
        if self.source:
            text += "  |  " + self.source
        if self.reached_from:
            text += "  (reached from %s)" % self.reached_from
        return text

    def __repr__(self):
        return "<syncscope.Finding %s>" % self.describe()


class SyncsFound(AssertionError):
    """Raised by assert_no_syncs: the block made what it was asked not to.
    `findings` holds each offending line once; `steps` the steps found in
    the block (0: none, and then every call counted)."""

    def __init__(self, findings, categories, steps=None, counted="steady"):
        self.findings = findings
        self.steps = steps
        n = len(findings)
        if counted == "all":
            where = "in the block (every phase counted)"
        elif not steps:
            where = "in the block (no training steps were found in it: every call counted)"
        else:
            where = "in the block's steady state (%d step%s; set-up before the first step and one-off reads " \
                    "after the last do not count)" % (steps, "" if steps == 1 else "s")
        lines = ["syncscope: %d line%s with %s %s:" % (n, "" if n == 1 else "s", categories, where)]
        lines += ["  " + f.describe() for f in findings]
        super().__init__("\n".join(lines))


_lock = threading.Lock()  # guards _recorder and _session; never held while a report is made
_recorder = None  # this process's recorder (_control.InProcess), once reached
_session = None  # the session this process's watches started, while it records
_step_marker = None


def _loaded_recorder_path():
    """The file of the libsyncscope.so mapped into this process, or None."""
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.rstrip("\n").split(None, 5)
                path = fields[5] if len(fields) == 6 else ""
                if path.endswith(" (deleted)"):  # replaced on disk since: found by its name among those loaded
                    path = path[:-len(" (deleted)")]
                if os.path.basename(path) == "libsyncscope.so":
                    return path
    except OSError:
        pass
    return None


def _recorder_here():
    """This process's recorder, loaded first when absent. Called with _lock held.

    Loaded here, its control endpoint (for `syncscope attach`) is closed at
    once and its thread joined: the watches drive it through
    `syncscope_control`, and between them no thread of the recorder is left.
    Already there (`syncscope run`, `--dormant`, attached), that very library
    is used (the path it was loaded from: never a second copy)."""
    global _recorder
    if _recorder is not None and _recorder.pid == os.getpid():
        return _recorder
    path = _loaded_recorder_path()
    loaded_here = path is None
    try:
        if loaded_here:
            library = ctypes.CDLL(_native.preload_library(), mode=ctypes.RTLD_GLOBAL)
        else:
            library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
    except OSError as e:
        raise SyncscopeError("cannot load the recorder: %s" % e) from None
    try:
        recorder = _control.InProcess(library)
    except AttributeError:
        raise SyncscopeError("the recorder in this process (%s) predates this syncscope package: it cannot be "
                             "driven in-process; record with the same syncscope as the package" % path) from None
    if loaded_here:
        recorder.close_endpoint()
    _recorder = recorder
    return recorder


def _report_environment():
    """The environment of the `syncscope report` a watch runs: not recorded
    itself (under `syncscope run` this process's LD_PRELOAD names the recorder)."""
    env = dict(os.environ)
    kept = [p for p in re.split(r"[: ]", env.get("LD_PRELOAD", "")) if p and os.path.basename(p) != "libsyncscope.so"]
    if kept:
        env["LD_PRELOAD"] = ":".join(kept)
    else:
        env.pop("LD_PRELOAD", None)
    env["SYNCSCOPE_DISABLE"] = "1"
    return env


def step():
    """Marks the end of a training step, as torch.optim's optimizer.step()
    does under `syncscope run` (docs/steps-and-phases.md): for loops without
    torch.optim. Does nothing when the recorder is not loaded."""
    global _step_marker
    if _step_marker is None:
        path = _loaded_recorder_path()
        if path is None:
            return
        # PyDLL: called with the GIL held, so the marker carries this line.
        _step_marker = ctypes.PyDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY).syncscope_optimizer_step
    _step_marker()


class _Session:
    """A session that watches of this process started: it records while any
    watch using it is open (the outermost, those nested in it, those of other
    threads meanwhile) and stops with the last."""

    def __init__(self, directory, trace, temporary):
        self.dir = directory
        self.trace = trace
        self.temporary = temporary  # the directory is removed with the session
        self.pid = os.getpid()
        self.users = 1
        self.stopped = None  # the stop reply, once stopped


def _stop_session(recorder, session):
    """Stops `session` (with _lock held): the final flush, the import slots put
    back, the collector thread joined."""
    global _session
    if _session is session:
        _session = None
    try:
        session.stopped = recorder.request("stop")
    except _control.ControlError as e:
        session.stopped = {}
        raise SyncscopeError("cannot stop recording: %s" % e) from None
    return session.stopped


class Watch:
    """Records the calls made inside a `with` block (every thread's).

    The first watch of a process that is not being recorded starts a session
    and the last one open stops it; a watch that finds the process recorded
    already (an enclosing watch, plain `syncscope run`, `syncscope attach`)
    marks its block's start and end on the trace clock, has the recorder
    flush, and reports that stretch of the trace (`syncscope report
    --between`)."""

    def __init__(self, gpu_timeline=False, keep=None, report_args=(), steady_only=False):
        self.gpu_timeline = gpu_timeline  # a session's only: a watch inside a recording has that recording's
        self.keep = keep  # a directory to keep the trace (or, inside a recording, the findings) in
        self.report_args = list(report_args)
        # Judged as `syncscope run`'s gate judges (assert_no_syncs): only what
        # recurs in the block's steady state counts, unless it holds no steps.
        self.steady_only = steady_only
        self.steps = None  # steps found in the block (this process's), once analysed
        self.findings = []
        self.json = None
        self.gate_failed = False
        self.slots_restored = self.slots_left = 0
        self.window = None  # (start_ns, end_ns) of the block, on the trace clock (CLOCK_MONOTONIC)
        self._session = None  # the _Session this watch uses, if any
        self._started = False  # this watch started it
        self._trace = None  # inside a recording not of a watch: its trace file at the start

    def __enter__(self):
        global _session
        with _lock:
            recorder = _recorder_here()
            if _session is not None and (_session.pid != os.getpid() or _session.stopped is not None):
                _session = None  # a parent process's, inherited through fork
            if _session is not None:
                _session.users += 1  # nested (or on another thread): a stretch of that session
                self._session = _session
            else:
                try:
                    hello = recorder.request("hello")
                except _control.ControlError as e:
                    raise SyncscopeError("the recorder does not answer: %s" % e) from None
                if hello.get("state") == "recording":
                    self._trace = hello.get("trace", "")  # the whole run's, or attach's
                else:
                    _session = self._session = self._start_session(recorder)
                    self._started = True
            start_ns = time.monotonic_ns()
        self.window = (start_ns, None)
        return self

    def _start_session(self, recorder):
        directory = self.keep or tempfile.mkdtemp(prefix="syncscope-watch-")
        os.makedirs(directory, exist_ok=True)
        fields = {"dir": os.path.abspath(directory)}
        if self.gpu_timeline:
            # The whole block, not the default sampling windows (an older recorder ignores the field).
            fields.update(gpu_timeline="1", gpu_sampling="full")
        try:
            started = recorder.request("start", **fields)
        except _control.ControlError as e:
            if self.keep is None:
                shutil.rmtree(directory, ignore_errors=True)
            raise SyncscopeError("cannot start recording: %s" % e) from None
        return _Session(directory, started.get("trace", ""), temporary=self.keep is None)

    def __exit__(self, *exc):
        end_ns = time.monotonic_ns()
        self.window = (self.window[0], end_ns)
        session, whole, trace = self._session, False, None
        recorder = out_dir = None
        try:
            with _lock:
                recorder = _recorder
                if session is not None and self._started and session.users == 1:
                    # The session is this block: stop it, report all of it.
                    self._note_stop(_stop_session(recorder, session))
                    whole = True
                else:
                    try:
                        recorder.request("flush")
                        trace = session.trace if session is not None else recorder.request("hello").get("trace", "")
                    except _control.ControlError as e:
                        raise SyncscopeError("cannot read the recording: %s" % e) from None
            if whole:
                self._analyse(session.dir, None, session.dir)
            elif trace:
                out_dir = self.keep or tempfile.mkdtemp(prefix="syncscope-watch-")
                os.makedirs(out_dir, exist_ok=True)
                self._analyse(trace, self.window, out_dir)
            else:  # recorded whole, and no CUDA call was ever made: no trace yet
                self.json = {"processes": []}
        finally:
            if out_dir is not None and self.keep is None:
                shutil.rmtree(out_dir, ignore_errors=True)
            if session is not None:
                with _lock:
                    session.users -= 1
                    last = session.users == 0
                    if last and session.stopped is None:  # the watch that started it ended first
                        try:
                            self._note_stop(_stop_session(recorder, session))
                        except SyncscopeError:
                            pass
                if last and session.temporary:
                    shutil.rmtree(session.dir, ignore_errors=True)
        return False

    def _note_stop(self, stopped):
        self.slots_restored = int(stopped.get("restored", 0))  # import slots put back (loaded late)
        self.slots_left = int(stopped.get("left", 0))  # changed by someone else meanwhile: left as found

    def _analyse(self, trace, window, out_dir):
        if self.steady_only:
            self._report(trace, window, out_dir, ["--no-default-suppressions"])
            if self.steps:
                return
            # No steps in the block: nothing tells set-up from the loop, so
            # every call counts (SyncsFound says so).
            self.steady_only = False
        # The block is all there is to it: no warm-up, every phase counts.
        self._report(trace, window, out_dir,
                     ["--warmup", "0", "--warmup-steps", "0", "--include-warmup", "--no-default-suppressions"])

    def _report(self, trace, window, out_dir, phase_args):
        out = os.path.join(out_dir, "findings.json")
        cmd = [_native.command(), "report", trace, "--format", "json=" + out] + phase_args + self.report_args
        if window is not None:
            cmd += ["--between", "%d,%d" % window]
        if os.path.exists(out):
            os.unlink(out)
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env=_report_environment())
        if not os.path.exists(out):
            raise SyncscopeError("the report could not be made (exit %d): %s" % (proc.returncode, proc.stderr.strip()))
        with open(out) as f:
            self.json = json.load(f)
        me = [p for p in self.json.get("processes", []) if p.get("pid") == os.getpid()]
        self.findings = [Finding(f) for p in me for f in p.get("findings", []) if not f.get("suppressed")]
        self.gate_failed = any(p.get("gate", {}).get("failed") for p in me)
        self.steps = sum(int((p.get("steps") or {}).get("count") or 0) for p in me)

    def report(self):
        """The text report of the block."""
        return "\n".join(f.describe() for f in self.findings) or "syncscope: no findings"


def watch(gpu_timeline=False, keep=None):
    """A context manager recording its block: `with syncscope.watch() as w:`;
    then `w.findings`, `w.json`, `w.report()`."""
    return Watch(gpu_timeline=gpu_timeline, keep=keep)


class assert_no_syncs:
    """Context manager and decorator: raises SyncsFound, listing each offending
    line once with its count and per-step rate, when the block makes findings
    of `categories` (comma list or "all"; default hidden syncs) beyond
    `budget` ("hidden-sync=2" or "hidden-sync=1/step", as `syncscope run
    --budget`), after `suppressions` (a file of category:pattern rules).

    It judges as `syncscope run`'s gate does: what recurs in the block's
    steady state counts; set-up before the first step and one-off reads
    after the last do not. `include_warmup=True` counts every phase. A block
    in which no steps are found has everything counted, and the message
    says so."""

    def __init__(self, categories=DEFAULT_CATEGORIES, budget=None, suppressions=None, include_warmup=False):
        self.categories = categories
        self.include_warmup = include_warmup
        self.args = ["--fail-on", categories]
        for b in ([budget] if isinstance(budget, str) else budget or []):
            self.args += ["--budget", b]
        for s in ([suppressions] if isinstance(suppressions, str) else suppressions or []):
            self.args += ["--suppressions", s]
        self._watch = None

    def __enter__(self):
        self._watch = Watch(report_args=self.args, steady_only=not self.include_warmup).__enter__()
        return self._watch

    def __exit__(self, exc_type, exc, tb):
        __tracebackhide__ = True  # the failure is the block's, not this frame's
        self._watch.__exit__(exc_type, exc, tb)
        if exc_type is None and self._watch.gate_failed:
            wanted = None if self.categories == "all" else set(self.categories.split(","))
            steady = self._watch.steady_only  # False when no steps were found: every phase counted
            offending = [f for f in self._watch.findings
                         if (wanted is None or f.category in wanted) and (not steady or f.phase == "steady")]
            raise SyncsFound(offending, self.categories, steps=self._watch.steps,
                             counted="all" if self.include_warmup else "steady")
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
