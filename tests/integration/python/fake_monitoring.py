"""A stand-in for Python 3.12's sys.monitoring on older Pythons, for the line
watch's end-to-end test (print_loop.py, tests/integration/what_if_test.cpp):
syncscope's sitecustomize.py takes a tool id, registers its callback and
sets local events on the loop's code objects as it would on 3.12; a
sys.settrace hook then calls that callback for each line of those code
objects and each return from them, with sys.monitoring's arguments
((code, line) and (code, offset, value)). Only what the line watch uses."""
import sys


class _Events:
    PY_RETURN = 1 << 2
    PY_YIELD = 1 << 3
    LINE = 1 << 5


class FakeMonitoring:
    events = _Events
    DISABLE = object()

    def __init__(self):
        self._tools = {}
        self._callbacks = {}
        self._local = {}  # code -> (tool, events)
        self._disabled = set()  # (code, line) answered with DISABLE

    def use_tool_id(self, tool, name):
        if tool in self._tools:
            raise ValueError(f"tool {tool} is already in use")
        self._tools[tool] = name

    def get_tool(self, tool):
        return self._tools.get(tool)

    def register_callback(self, tool, event, callback):
        self._callbacks[(tool, event)] = callback

    def set_local_events(self, tool, code, events):
        self._local[code] = (tool, events)
        sys.settrace(self._on_call)
        frame = sys._getframe(1)
        while frame is not None:  # frames already running, as instrumentation reaches them
            if frame.f_code in self._local:
                frame.f_trace = self._on_local
                frame.f_trace_lines = True
            frame = frame.f_back

    def _on_call(self, frame, event, arg):
        return self._on_local if frame.f_code in self._local else None

    def _on_local(self, frame, event, arg):
        code = frame.f_code
        tool, events = self._local.get(code, (None, 0))
        if event == "line" and events & _Events.LINE and (code, frame.f_lineno) not in self._disabled:
            if self._callbacks[(tool, _Events.LINE)](code, frame.f_lineno) is self.DISABLE:
                self._disabled.add((code, frame.f_lineno))
        elif event == "return" and events & _Events.PY_RETURN:
            self._callbacks[(tool, _Events.PY_RETURN)](code, frame.f_lasti, arg)
        return self._on_local
