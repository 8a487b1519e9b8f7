// Native stacks as PyTorch 2.x on CUDA records them, innermost first, for
// the frame folding and layout tests: `.item()` on the main thread, and an
// embedding backward that reads a count back on autograd's thread.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sites/symbolizer.h"

namespace syncscope::testing {

inline Frame frame(const std::string& symbol, const std::string& module) {
  Frame f;
  f.symbol = symbol;
  f.module = module;
  f.module_path = "/venv/lib/" + module;
  f.offset = 0x1f;
  return f;
}

inline const char* kWrapLocalScalarDense =
    "c10::impl::wrap_kernel_functor_unboxed_<c10::impl::detail::WrapFunctionIntoFunctor_<c10::"
    "CompileTimeFunctionPointer<c10::Scalar (at::Tensor const&), &at::(anonymous namespace)::(anonymous namespace)::"
    "wrapper_CUDA___local_scalar_dense>, c10::Scalar, c10::guts::typelist::typelist<at::Tensor const&> >, c10::Scalar "
    "(at::Tensor const&)>::call(c10::OperatorKernel*, c10::DispatchKeySet, at::Tensor const&)";

// The frames from the kernel that read the value down to at::_ops::item::call.
inline std::vector<Frame> item_op_frames() {
  return {
      frame("at::native::_local_scalar_dense_cuda(at::Tensor const&)", "libtorch_cuda.so"),
      frame("at::(anonymous namespace)::(anonymous namespace)::wrapper_CUDA___local_scalar_dense(at::Tensor const&)",
            "libtorch_cuda.so"),
      frame(kWrapLocalScalarDense, "libtorch_cuda.so"),
      frame("at::_ops::_local_scalar_dense::call(at::Tensor const&)", "libtorch_cpu.so"),
      frame("at::native::item(at::Tensor const&)", "libtorch_cpu.so"),
      frame("c10::impl::wrap_kernel_functor_unboxed_<c10::impl::detail::WrapFunctionIntoFunctor_<c10::"
            "CompileTimeFunctionPointer<c10::Scalar (at::Tensor const&), &at::(anonymous namespace)::(anonymous "
            "namespace)::wrapper_CompositeImplicitAutograd__item>, c10::Scalar, c10::guts::typelist::typelist<at::"
            "Tensor const&> >, c10::Scalar (at::Tensor const&)>::call(c10::OperatorKernel*, c10::DispatchKeySet, "
            "at::Tensor const&)",
            "libtorch_cpu.so"),
      frame("at::_ops::item::call(at::Tensor const&)", "libtorch_cpu.so"),
  };
}

// `loss.item()` from a Python script run by a statically linked python3.10.
inline std::vector<Frame> item_stack() {
  std::vector<Frame> frames = item_op_frames();
  std::vector<Frame> rest = {
      frame("torch::autograd::THPVariable_item(_object*, _object*)::{lambda(at::Tensor const&)#1}::operator()(at::"
            "Tensor const&) const",
            "libtorch_python.so"),
      frame("torch::autograd::THPVariable_item(_object*, _object*)", "libtorch_python.so"),
      frame("method_vectorcall_NOARGS", "python3.10"),
      frame("_PyEval_EvalFrameDefault", "python3.10"),
      frame("_PyFunction_Vectorcall", "python3.10"),
      frame("_PyEval_EvalFrameDefault", "python3.10"),
      frame("PyEval_EvalCode", "python3.10"),
      frame("run_eval_code_obj", "python3.10"),
      frame("run_mod", "python3.10"),
      frame("_PyRun_SimpleFileObject", "python3.10"),
      frame("Py_RunMain", "python3.10"),
      frame("Py_BytesMain", "python3.10"),
      frame("__libc_start_call_main", "libc.so.6"),
      frame("__libc_start_main", "libc.so.6"),
      frame("_start", "python3.10"),
  };
  frames.insert(frames.end(), rest.begin(), rest.end());
  return frames;
}

// embedding's backward on pt_autograd_0 reads the number of segments back.
inline std::vector<Frame> embedding_backward_stack() {
  std::vector<Frame> frames = item_op_frames();
  std::vector<Frame> rest = {
      frame("long at::Tensor::item<long>() const", "libtorch_cuda.so"),
      frame("at::native::embedding_backward_cuda_kernel(at::Tensor const&, at::Tensor const&, at::Tensor const&, "
            "at::Tensor const&, long, long, bool, at::Tensor const&, at::Tensor const&, at::Tensor const&)",
            "libtorch_cuda.so"),
      frame("at::native::embedding_dense_backward_cuda(at::Tensor const&, at::Tensor const&, long, long, bool)",
            "libtorch_cuda.so"),
      frame("at::(anonymous namespace)::(anonymous namespace)::wrapper_CUDA__embedding_dense_backward(at::Tensor "
            "const&, at::Tensor const&, c10::SymInt, c10::SymInt, bool)",
            "libtorch_cuda.so"),
      frame("at::_ops::embedding_dense_backward::redispatch(c10::DispatchKeySet, at::Tensor const&, at::Tensor "
            "const&, c10::SymInt, c10::SymInt, bool)",
            "libtorch_cpu.so"),
      frame("torch::autograd::VariableType::(anonymous namespace)::embedding_dense_backward(c10::DispatchKeySet, "
            "at::Tensor const&, at::Tensor const&, c10::SymInt, c10::SymInt, bool)",
            "libtorch_cpu.so"),
      frame("at::_ops::embedding_dense_backward::call(at::Tensor const&, at::Tensor const&, c10::SymInt, "
            "c10::SymInt, bool)",
            "libtorch_cpu.so"),
      frame("torch::autograd::generated::EmbeddingBackward0::apply(std::vector<at::Tensor, std::allocator<at::"
            "Tensor> >&&)",
            "libtorch_cpu.so"),
      frame("torch::autograd::Node::operator()(std::vector<at::Tensor, std::allocator<at::Tensor> >&&)",
            "libtorch_cpu.so"),
      frame("torch::autograd::call_function(std::shared_ptr<torch::autograd::GraphTask>&, torch::autograd::Node*, "
            "torch::autograd::InputBuffer&)",
            "libtorch_cpu.so"),
      frame("torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&, "
            "torch::autograd::Node*, torch::autograd::InputBuffer&, std::shared_ptr<torch::autograd::ReadyQueue> "
            "const&)",
            "libtorch_cpu.so"),
      frame("torch::autograd::Engine::thread_main(std::shared_ptr<torch::autograd::GraphTask> const&)",
            "libtorch_cpu.so"),
      frame("torch::autograd::Engine::thread_init(int, std::shared_ptr<torch::autograd::ReadyQueue> const&, bool)",
            "libtorch_cpu.so"),
      frame("torch::autograd::python::PythonEngine::thread_init(int, std::shared_ptr<torch::autograd::ReadyQueue> "
            "const&, bool)",
            "libtorch_python.so"),
      frame("std::execute_native_thread_routine", "libstdc++.so.6"),
      frame("start_thread", "libc.so.6"),
      frame("clone3", "libc.so.6"),
  };
  frames.insert(frames.end(), rest.begin(), rest.end());
  return frames;
}

}  // namespace syncscope::testing
