"""The recorder's control protocol (docs/control-protocol.md), spoken to the
recorder in this very process: one request line, one reply line, logfmt
fields. The lines go through the library's exported `syncscope_control`
(preload/attach/in_process.cpp), called with ctypes, not through its socket: a
process whose recorder Python loaded closes the socket's thread at once
(`close_endpoint`), so that no thread of the recorder outlives a watch.
"""
import ctypes
import os
import re

_FIELD = re.compile(r'([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)')
_REPLY_ROOM = 16384  # more than any reply (paths are at most 4 KiB)


def _quote(value):
    value = str(value)
    if value and not re.search(r'[\s"\\\x00-\x1f]', value):
        return value
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    escaped = escaped.replace("\t", "\\t")
    escaped = re.sub(r"[\x00-\x1f]", lambda m: "\\x%02x" % ord(m.group()), escaped)
    return '"' + escaped + '"'


def _unquote(value):
    if not value.startswith('"'):
        return value
    body = value[1:-1]
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n == "x" and i + 3 < len(body):
                out.append(chr(int(body[i + 2:i + 4], 16)))
                i += 4
                continue
            out.append({"n": "\n", "r": "\r", "t": "\t"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def format_request(word, **fields):
    return " ".join([word] + ["%s=%s" % (k, _quote(v)) for k, v in fields.items()])


def parse_reply(text):
    """The fields of an `ok` reply; ControlError with the reason otherwise."""
    word = text.split(" ", 1)[0]
    values = {k: _unquote(v) for k, v in _FIELD.findall(text[len(word):])}
    if word != "ok":
        raise ControlError(values.get("reason", text))
    return values


class ControlError(RuntimeError):
    pass


class InProcess:
    """The recorder loaded in this process (a ctypes.CDLL of libsyncscope.so).
    AttributeError when that library predates the in-process entry points."""

    def __init__(self, library):
        self.pid = os.getpid()
        self._control = library.syncscope_control
        self._control.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong]
        self._control.restype = ctypes.c_int
        self._close_endpoint = library.syncscope_control_endpoint_stop
        self._close_endpoint.argtypes = []
        self._close_endpoint.restype = ctypes.c_int

    def request(self, word, **fields):
        # A CDLL function: the GIL is released while the recorder works (a
        # flush waits for its collector thread, which may need it).
        buffer = ctypes.create_string_buffer(_REPLY_ROOM)
        length = self._control(format_request(word, **fields).encode(), buffer, len(buffer))
        if length >= len(buffer):
            raise ControlError("the recorder's reply to %s is too long (%d bytes)" % (word, length))
        return parse_reply(buffer.value.decode(errors="replace"))

    def close_endpoint(self):
        """Closes the control socket and joins its thread; False when its
        thread is serving a client (`syncscope attach`) and stays until that
        client goes."""
        return bool(self._close_endpoint())
