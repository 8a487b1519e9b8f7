"""`python -m syncscope ...` and the `syncscope` console script: the command
itself, from the wheel's native files (docs/python.md)."""
import os
import sys

from . import _native


def main():
    command = _native.command()
    os.execv(command, [command] + sys.argv[1:])


if __name__ == "__main__":
    main()
