"""A user's script whose loop is a library's (fakelib, under this folder's
site-packages/): every sync happens inside fakelib, reached from line 15.

    python3 train_with_library.py STEPS
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

import fakelib  # noqa: E402


def main():
    fakelib.Trainer().train(int(sys.argv[1]))  # the user's line: 15


if __name__ == "__main__":
    main()
