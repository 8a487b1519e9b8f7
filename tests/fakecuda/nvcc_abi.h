// The runtime entry points that nvcc-generated host code calls (fat binary,
// kernel and variable registration; the <<<>>> configuration stack). The
// toolkit declares them only inside nvcc's own compilation (crt/host_runtime.h
// under __CUDA_INTERNAL_COMPILATION__), so they are spelled out here with
// the same signatures; shared by the fake runtime and its self-test.
#pragma once

#include <cuda_runtime_api.h>

extern "C" {
void** __cudaRegisterFatBinary(void* fatCubin);
void __cudaRegisterFatBinaryEnd(void** fatCubinHandle);
void __cudaUnregisterFatBinary(void** fatCubinHandle);
char __cudaInitModule(void** fatCubinHandle);
void __cudaRegisterFunction(void** fatCubinHandle, const char* hostFun, char* deviceFun, const char* deviceName,
                            int thread_limit, uint3* tid, uint3* bid, dim3* bDim, dim3* gDim, int* wSize);
void __cudaRegisterVar(void** fatCubinHandle, char* hostVar, char* deviceAddress, const char* deviceName, int ext,
                       size_t size, int constant, int global);
void __cudaRegisterManagedVar(void** fatCubinHandle, void** hostVarPtrAddress, char* deviceAddress,
                              const char* deviceName, int ext, size_t size, int constant, int global);
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* hostFun);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream);
cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream);
}
