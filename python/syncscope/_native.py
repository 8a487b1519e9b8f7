"""Where the native parts live: the `syncscope` command and libsyncscope.so.

Inside the wheel they sit in `syncscope/_native/{bin,lib}` (the relocatable
bundle of scripts/make-bundle.sh). In a source checkout, SYNCSCOPE_HOME may
point at a bundle or a build directory (bin/syncscope, lib/libsyncscope.so).
"""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def home():
    explicit = os.environ.get("SYNCSCOPE_HOME")
    for candidate in ([explicit] if explicit else []) + [os.path.join(_HERE, "_native")]:
        if os.path.exists(os.path.join(candidate, "bin", "syncscope")):
            return candidate
    raise FileNotFoundError(
        "syncscope's native files were not found: install the wheel (scripts/build-wheel.sh) "
        "or set SYNCSCOPE_HOME to a bundle or build directory")


def command():
    return os.path.join(home(), "bin", "syncscope")


def preload_library():
    return os.path.join(home(), "lib", "libsyncscope.so")
