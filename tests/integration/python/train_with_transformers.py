"""A user's script whose loop is transformers' Trainer (a stand-in under
this folder's site-packages/): its syncs are known library sites, reached
from line 16.

    python3 train_with_transformers.py STEPS
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

import transformers  # noqa: E402


def main():
    transformers.Trainer().train(int(sys.argv[1]))  # the user's line: 16


if __name__ == "__main__":
    main()
