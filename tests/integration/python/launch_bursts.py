"""Launch bursts around a sync, all inside one ctypes call (the GIL released
for its length, as PyTorch releases it): the sync's Python frames are owed
until the call returns, after the second burst was recorded.

    python3 launch_bursts.py LIB STEPS
"""
import ctypes
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)


def main():
    lib = ctypes.CDLL(sys.argv[1])  # a CDLL call releases the GIL
    for _ in range(int(sys.argv[2])):
        if lib.syncscope_launch_burst(40, 40) != 0:  # line 16
            raise SystemExit("launch_bursts: a CUDA call failed")
    print("launch_bursts: done")


if __name__ == "__main__":
    main()
