#include "report/frame_folding.h"

#include <gtest/gtest.h>

#include "tests/unit/report/pytorch_frames.h"

namespace syncscope::testing {
namespace {

std::vector<std::string> texts(const std::vector<FoldedLine>& lines) {
  std::vector<std::string> out;
  for (const FoldedLine& l : lines) out.push_back(l.text);
  return out;
}

TEST(FrameFolding, ElidesTemplateArgumentsAndParameterLists) {
  EXPECT_EQ(elide_symbol(kWrapLocalScalarDense), "c10::impl::wrap_kernel_functor_unboxed_<…>::call(…)");
  EXPECT_EQ(elide_symbol("at::Tensor c10::Dispatcher::redispatch<at::Tensor, at::Tensor const&>(c10::"
                         "TypedOperatorHandle<at::Tensor (at::Tensor const&)> const&, c10::DispatchKeySet, at::Tensor "
                         "const&) const"),
            "at::Tensor c10::Dispatcher::redispatch<…>(…) const");
  EXPECT_EQ(elide_symbol("std::_Function_handler<void (c10::OperatorHandle const&, std::vector<c10::IValue, "
                         "std::allocator<c10::IValue> >*), void (*)(c10::OperatorHandle const&, std::vector<c10::"
                         "IValue, std::allocator<c10::IValue> >*)>::_M_invoke(std::_Any_data const&, "
                         "c10::OperatorHandle const&, std::vector<c10::IValue, std::allocator<c10::IValue> >*&&)"),
            "std::_Function_handler<…>::_M_invoke(…)");
  EXPECT_EQ(elide_symbol("long at::Tensor::item<long>() const"), "long at::Tensor::item<…>() const");
}

TEST(FrameFolding, KeepsOperatorsAnonymousNamespacesAndPlainNames) {
  EXPECT_EQ(elide_symbol("at::(anonymous namespace)::(anonymous namespace)::wrapper_CUDA___local_scalar_dense(at::"
                         "Tensor const&)"),
            "at::(anonymous namespace)::(anonymous namespace)::wrapper_CUDA___local_scalar_dense(…)");
  EXPECT_EQ(elide_symbol("torch::autograd::THPVariable_item(_object*, _object*)::{lambda(at::Tensor const&)#1}::"
                         "operator()(at::Tensor const&) const"),
            "torch::autograd::THPVariable_item(…)::{lambda(…)#1}::operator()(…) const");
  EXPECT_EQ(elide_symbol("std::vector<int, std::allocator<int> >::operator[](unsigned long)"),
            "std::vector<…>::operator[](…)");
  EXPECT_EQ(elide_symbol("c10::operator<<(std::ostream&, c10::Device const&)"), "c10::operator<<(…)");
  EXPECT_EQ(elide_symbol("std::unique_ptr<Foo>::operator->() const"), "std::unique_ptr<…>::operator->() const");
  EXPECT_EQ(elide_symbol("bool std::operator< <char>(std::string const&, std::string const&)"),
            "bool std::operator< <…>(…)");
  EXPECT_EQ(elide_symbol("cudaStreamSynchronize"), "cudaStreamSynchronize");
  EXPECT_EQ(elide_symbol("read_loss_value()"), "read_loss_value()");
  EXPECT_EQ(elide_symbol("??"), "??");
  EXPECT_EQ(elide_symbol("broken<unbalanced(int"), "broken<unbalanced(int");  // left as it was
}

TEST(FrameFolding, QualifiedNameDropsReturnTypeTemplatesAndParameters) {
  EXPECT_EQ(qualified_name(kWrapLocalScalarDense), "c10::impl::wrap_kernel_functor_unboxed_::call");
  EXPECT_EQ(qualified_name("at::Tensor c10::Dispatcher::redispatch<at::Tensor>(at::Tensor const&) const"),
            "c10::Dispatcher::redispatch");
  EXPECT_EQ(qualified_name("torch::autograd::THPVariable_item(_object*, _object*)::{lambda(at::Tensor const&)#1}::"
                           "operator()(at::Tensor const&) const"),
            "torch::autograd::THPVariable_item(…)::{lambda(…)#1}::operator()");
  EXPECT_EQ(qualified_name("at::(anonymous namespace)::wrapper_CUDA__add_Tensor(at::Tensor const&)"),
            "at::(anonymous namespace)::wrapper_CUDA__add_Tensor");
  EXPECT_EQ(qualified_name("foo() [clone .cold]"), "foo");
  EXPECT_EQ(qualified_name("_PyEval_EvalFrameDefault"), "_PyEval_EvalFrameDefault");
}

TEST(FrameFolding, KindsOfPlumbing) {
  EXPECT_EQ(frame_kind(frame(kWrapLocalScalarDense, "libtorch_cuda.so")), FrameKind::kDispatcher);
  EXPECT_EQ(frame_kind(frame("at::_ops::item::call(at::Tensor const&)", "libtorch_cpu.so")), FrameKind::kDispatcher);
  EXPECT_EQ(
      frame_kind(frame("at::(anonymous namespace)::wrapper_CUDA__add_Tensor(at::Tensor const&)", "libtorch_cuda.so")),
      FrameKind::kDispatcher);
  EXPECT_EQ(frame_kind(frame("torch::ADInplaceOrView::(anonymous namespace)::add__Tensor(c10::DispatchKeySet)",
                             "libtorch_cpu.so")),
            FrameKind::kDispatcher);
  EXPECT_EQ(frame_kind(frame("pybind11::cpp_function::dispatcher(_object*, _object*, _object*)", "_C.so")),
            FrameKind::kDispatcher);
  // CPython's call protocol, named in libpython or anywhere in a python3 binary.
  EXPECT_EQ(frame_kind(frame("_PyObject_MakeTpCall", "libpython3.11.so.1.0")), FrameKind::kInterpreter);
  EXPECT_EQ(frame_kind(frame("cfunction_call", "libpython3.11.so.1.0")), FrameKind::kInterpreter);
  EXPECT_EQ(frame_kind(frame("slot_tp_call", "python3.10")), FrameKind::kInterpreter);
  EXPECT_EQ(frame_kind(frame("??", "python3.10")), FrameKind::kInterpreter);
  EXPECT_EQ(frame_kind(frame("start_thread", "libc.so.6")), FrameKind::kStartup);
  EXPECT_EQ(frame_kind(frame("std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (*)()> > >::_M_run()",
                             "libstdc++.so.6")),
            FrameKind::kStartup);
  // What a person needs stays: the op, the binding, the CUDA API, their own code.
  EXPECT_EQ(frame_kind(frame("at::native::_local_scalar_dense_cuda(at::Tensor const&)", "libtorch_cuda.so")),
            FrameKind::kShown);
  EXPECT_EQ(frame_kind(frame("torch::autograd::THPVariable_item(_object*, _object*)", "libtorch_python.so")),
            FrameKind::kShown);
  EXPECT_EQ(frame_kind(frame("cudaStreamSynchronize", "libcudart.so.12")), FrameKind::kShown);
  EXPECT_EQ(frame_kind(frame("start_thread_pool(int)", "libapp.so")), FrameKind::kShown);  // not libc's start_thread
  EXPECT_EQ(frame_kind(frame("??", "libapp.so")), FrameKind::kShown);
}

TEST(FrameFolding, ItemStackFoldsToTheOpTheBindingAndOneLinePerRun) {
  std::vector<FoldedLine> lines = fold_frames(item_stack(), FoldOptions{});
  EXPECT_EQ(texts(lines), (std::vector<std::string>{
                              "at::native::_local_scalar_dense_cuda(…) (libtorch_cuda.so)",
                              "… 3 dispatcher frames …",
                              "at::native::item(…) (libtorch_cpu.so)",
                              "… 2 dispatcher frames …",
                              "torch::autograd::THPVariable_item(…)::{lambda(…)#1} (libtorch_python.so)",
                              "torch::autograd::THPVariable_item(…) (libtorch_python.so)",
                              "… 13 interpreter/startup frames …",
                          }));
  EXPECT_EQ(lines[0].frame, 0);
  EXPECT_EQ(lines[1].frame, -1);
  EXPECT_EQ(lines[2].frame, 4);
}

TEST(FrameFolding, CapCountsFramesOfTheirOwnAndSaysHowToSeeTheRest) {
  std::vector<FoldedLine> lines = fold_frames(embedding_backward_stack(), FoldOptions{false, 6});
  EXPECT_EQ(texts(lines), (std::vector<std::string>{
                              "at::native::_local_scalar_dense_cuda(…) (libtorch_cuda.so)",
                              "… 3 dispatcher frames …",
                              "at::native::item(…) (libtorch_cpu.so)",
                              "… 2 dispatcher frames …",
                              "long at::Tensor::item<…>() const (libtorch_cuda.so)",
                              "at::native::embedding_backward_cuda_kernel(…) (libtorch_cuda.so)",
                              "at::native::embedding_dense_backward_cuda(…) (libtorch_cuda.so)",
                              "… 4 dispatcher frames …",
                              "torch::autograd::generated::EmbeddingBackward0::apply(…) (libtorch_cpu.so)",
                              "… 9 dispatcher/startup frames …",
                          }));
  // Past the cap, frames of their own still to come make one "more" line.
  lines = fold_frames(embedding_backward_stack(), FoldOptions{false, 3});
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_EQ(lines[4].text, "long at::Tensor::item<…>() const (libtorch_cuda.so)");
  EXPECT_EQ(lines[5].text, "… 16 more (--full-frames)");
  std::vector<Frame> plain;
  for (int i = 0; i < 10; ++i) plain.push_back(frame("step" + std::to_string(i) + "()", "app"));
  lines = fold_frames(plain, FoldOptions{false, 6});
  ASSERT_EQ(lines.size(), 7u);
  EXPECT_EQ(lines[5].text, "step5() (app)");
  EXPECT_EQ(lines[6].text, "… 4 more (--full-frames)");
  EXPECT_EQ(lines[6].frame, -1);
}

TEST(FrameFolding, FullFramesShowsEveryFrameAsSymbolised) {
  std::vector<Frame> frames = item_stack();
  std::vector<FoldedLine> lines = fold_frames(frames, FoldOptions{true, 6});
  ASSERT_EQ(lines.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(lines[i].text, frames[i].to_string());
    EXPECT_EQ(lines[i].frame, static_cast<int>(i));
  }
  EXPECT_NE(lines[2].text.find("WrapFunctionIntoFunctor_<c10::CompileTimeFunctionPointer<"), std::string::npos);
}

TEST(FrameFolding, UnnamedLibcFrameBeforeStartupIsStartup) {
  Frame unnamed = frame("??", "libc.so.6");
  std::vector<Frame> frames = {frame("read_loss_value()", "app"), frame("main", "app"), unnamed,
                               frame("__libc_start_main", "libc.so.6"), frame("_start", "app")};
  EXPECT_EQ(texts(fold_frames(frames, FoldOptions{})),
            (std::vector<std::string>{"read_loss_value() (app)", "main (app)", "… 3 startup frames …"}));
  // Elsewhere an unnamed libc frame is shown: it may be where the time went.
  frames = {unnamed, frame("main", "app")};
  EXPECT_EQ(texts(fold_frames(frames, FoldOptions{})).front(), "libc.so.6+0x1f");
}

TEST(FrameFolding, UnnamedFramesKeepTheirModuleOffset) {
  Frame f = frame("??", "libapp.so");
  f.offset = 0x30;
  EXPECT_EQ(short_frame_text(f), "libapp.so+0x30");
  EXPECT_EQ(short_frame_text(frame("run(int)", "")), "run(…)");
}

}  // namespace
}  // namespace syncscope::testing
