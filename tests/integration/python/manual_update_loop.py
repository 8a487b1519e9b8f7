"""word_language_model's shape against the fake runtime, with the stand-in
torch of this folder: no torch.optim (the parameters updated by hand),
loss.backward() every batch (its pass queued by a C++ thread kept across
batches, as autograd's), a read-back every batch, then an evaluation pass of
forwards and read-backs with no backward. Each pass makes a backward() of
its own inside, which is not marked.

    python3 manual_update_loop.py BATCHES EVAL_BATCHES libframeless_worker.so liblaunch_burst.so
"""
import ctypes
import sys

ctypes.CDLL("libcudart.so.13", mode=ctypes.RTLD_GLOBAL)
cuda = ctypes.CDLL(None)  # releases the GIL around each call, as PyTorch does

import torch  # noqa: E402  (the stand-in; syncscope's sitecustomize watches torch.autograd)


def forward(kernels):
    if kernels.syncscope_launch_kernels(24) != 0:
        raise SystemExit("manual_update_loop: a launch failed")


def backward_pass(worker, device, stream):
    worker.syncscope_test_backward_pass(60, device, stream)
    # A backward() inside the pass, as reentrant checkpointing makes: part of
    # this pass, not a pass of the loop (no marker).
    torch.autograd.backward(torch.Tensor(lambda: None))


def main():
    batches, eval_batches = int(sys.argv[1]), int(sys.argv[2])
    worker, kernels = ctypes.CDLL(sys.argv[3]), ctypes.CDLL(sys.argv[4])
    stream, device, host = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    cuda.cudaStreamCreateWithFlags(ctypes.byref(stream), 1)
    cuda.cudaMalloc(ctypes.byref(device), ctypes.c_size_t(256))
    cuda.cudaMallocHost(ctypes.byref(host), ctypes.c_size_t(64))
    for _ in range(batches):
        forward(kernels)
        loss = torch.Tensor(lambda: backward_pass(worker, device, stream))
        loss.backward()  # line 41: the backward marker's line
        for _ in range(8):  # p.data.add_(p.grad, alpha=-lr), parameter by parameter
            cuda.cudaMemsetAsync(device, 2, ctypes.c_size_t(64), stream)
        cuda.cudaMemcpyAsync(host, device, ctypes.c_size_t(4), 2, stream)
        cuda.cudaStreamSynchronize(stream)  # line 45: total_loss += loss.item()
    for _ in range(eval_batches):
        forward(kernels)
        cuda.cudaMemcpyAsync(host, device, ctypes.c_size_t(4), 2, stream)
        cuda.cudaStreamSynchronize(stream)  # line 49: the evaluation's read-back
    print(f"manual_update_loop: {batches} batches, {eval_batches} eval batches")


if __name__ == "__main__":
    main()
