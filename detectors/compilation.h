// torch.compile's own work is warm-up wherever it happens. Dynamo traces and
// Inductor compiles a graph the first time it runs (and again after a
// recompile): the first evaluation batch of a compiled model, the first
// backward. The CUDA calls it makes meanwhile (constants copied to the
// device, autotuning's timing syncs) happen once per graph; a step that
// holds them is an interrupted step, not the program's steady state.
#pragma once

#include "segmentation/segmentation.h"
#include "trace/reader.h"

namespace syncscope {

// Places the events whose Python stack is inside a compilation (one of the
// compiler's entry points in compilation.cpp) in warm-up; the stacks of
// threads without Python (autograd's) count through nothing: the backward
// graph's compile runs Python on the thread that compiles it.
void place_compilation_in_warmup(const ProcessTrace& trace, Segmentation* segmentation);

}  // namespace syncscope
