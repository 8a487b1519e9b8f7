#!/usr/bin/env python3
"""Builds the syncscope wheel from a bundle (scripts/make-bundle.sh) and the
Python package (python/syncscope), with the standard library only: a wheel is
a zip with a .dist-info folder (PEP 427), no packaging tool needed.

    scripts/make-wheel.py BUNDLE OUT_DIR VERSION

The platform tag is manylinux_2_28_<arch>: the bundle of a portable build
(SYNCSCOPE_PORTABLE) needs glibc 2.28 at most, which scripts/build-wheel.sh
checks with scripts/check-manylinux.py.
"""
import base64
import hashlib
import os
import platform
import sys
import zipfile

bundle, out_dir, version = sys.argv[1], sys.argv[2], sys.argv[3]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
package = os.path.join(root, "python", "syncscope")
tag = "py3-none-manylinux_2_28_%s" % platform.machine()
name = "syncscope-%s-%s.whl" % (version, tag)
dist_info = "syncscope-%s.dist-info" % version

files = []  # (path in the wheel, bytes, mode)
for directory, _, names in os.walk(package):
    for n in sorted(names):
        if n.endswith((".pyc", ".pyo")) or "__pycache__" in directory:
            continue
        path = os.path.join(directory, n)
        files.append((os.path.join("syncscope", os.path.relpath(path, package)), open(path, "rb").read(), 0o644))
for sub in ("bin", "lib"):
    for directory, _, names in os.walk(os.path.join(bundle, sub)):
        for n in sorted(names):
            path = os.path.join(directory, n)
            mode = 0o755 if os.access(path, os.X_OK) else 0o644
            rel = os.path.relpath(path, bundle)
            files.append((os.path.join("syncscope", "_native", rel), open(path, "rb").read(), mode))

metadata = """Metadata-Version: 2.1
Name: syncscope
Version: %s
Summary: Where the host waits on the GPU or starves it: hidden syncs, pageable copies, allocator churn, default-stream serialization, per Python line
License: Apache-2.0
Requires-Python: >=3.8

See README.md and docs/python.md in the source repository.
""" % version
wheel = "Wheel-Version: 1.0\nGenerator: syncscope scripts/make-wheel.py\nRoot-Is-Purelib: false\nTag: %s\n" % tag
entry_points = "[console_scripts]\nsyncscope = syncscope.__main__:main\n\n[pytest11]\nsyncscope = syncscope.pytest_plugin\n"
for n, text in (("METADATA", metadata), ("WHEEL", wheel), ("entry_points.txt", entry_points),
                ("top_level.txt", "syncscope\n")):
    files.append((os.path.join(dist_info, n), text.encode(), 0o644))

record = []
os.makedirs(out_dir, exist_ok=True)
target = os.path.join(out_dir, name)
with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
    for path, data, mode in files:
        info = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o100000 | mode) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append("%s,sha256=%s,%d" % (path, digest, len(data)))
    record.append("%s/RECORD,," % dist_info)
    info = zipfile.ZipInfo("%s/RECORD" % dist_info, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100644) << 16
    z.writestr(info, "\n".join(record) + "\n")
print(target)
