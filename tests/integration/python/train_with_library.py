"""A user's script whose loop is a library's (fakelib, or the stand-in of
transformers' Trainer, under this folder's site-packages/): every sync
happens inside the library, reached from line 17.

    python3 train_with_library.py STEPS [LIBRARY]
"""
import importlib
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))


def main():
    steps = int(sys.argv[1])
    library = importlib.import_module(sys.argv[2] if len(sys.argv) > 2 else "fakelib")
    library.Trainer().train(steps)  # the user's line: 17


if __name__ == "__main__":
    main()
