"""No tracked file outside test data is larger than 512 KB: a profile, a
trace or a build product committed by accident (a 1.1 MB folded-stack file
named `0` once sat at the root) makes every clone heavier for good.

    python3 check_file_sizes.py REPOSITORY_ROOT

Skipped (exit 0, said) where the source is not a git checkout.
"""
import os
import subprocess
import sys

LIMIT = 512 * 1024
TEST_DATA = ("tests/data/", "tests/fuzz/corpus/")

root = sys.argv[1]
try:
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, check=True).stdout
except (OSError, subprocess.CalledProcessError) as e:
    print("not a git checkout (%s): nothing to check" % e)
    sys.exit(0)
too_large = []
for path in filter(None, listed.decode("utf-8", "replace").split("\0")):
    if path.startswith(TEST_DATA):
        continue
    full = os.path.join(root, path)
    if os.path.isfile(full) and not os.path.islink(full) and os.path.getsize(full) > LIMIT:
        too_large.append("%s (%d KB)" % (path, os.path.getsize(full) // 1024))
if too_large:
    print("tracked files over %d KB outside test data:\n  %s" % (LIMIT // 1024, "\n  ".join(too_large)))
    sys.exit(1)
print("every tracked file outside test data is at most %d KB" % (LIMIT // 1024))
