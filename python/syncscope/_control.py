"""The recorder's control protocol (docs/control-protocol.md), spoken to this
very process: one line per request, one per reply, logfmt fields, over the
abstract Unix socket "syncscope.<pid>". A session belongs to the connection
that started it, so a Connection stays open for the whole watch.
"""
import os
import re
import socket

_FIELD = re.compile(r'([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S*)')


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


class ControlError(RuntimeError):
    pass


class Connection:
    def __init__(self, pid=None, timeout=15.0):
        self.pid = pid or os.getpid()
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect("\0syncscope.%d" % self.pid)
        self.buffer = b""

    def request(self, word, **fields):
        line = " ".join([word] + ["%s=%s" % (k, _quote(v)) for k, v in fields.items()])
        self.sock.sendall(line.encode() + b"\n")
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ControlError("the recorder closed the connection")
            self.buffer += chunk
        reply, self.buffer = self.buffer.split(b"\n", 1)
        text = reply.decode(errors="replace")
        word_out = text.split(" ", 1)[0]
        values = {k: _unquote(v) for k, v in _FIELD.findall(text[len(word_out):])}
        if word_out != "ok":
            raise ControlError(values.get("reason", text))
        return values

    def close(self):
        self.sock.close()
