#include "report/site_frames.h"

namespace syncscope {

bool is_library_module(const std::string& module) {
  static const char* kPrefixes[] = {"libsyncscope", "libcudart", "libcuda.", "libc.so", "libc-", "libstdc++",
                                    "libgcc", "ld-linux", "libtorch", "libc10", "libpython", "python3",
                                    "libcublas", "libcudnn", "libnccl", "libm.so", "libpthread"};
  for (const char* p : kPrefixes) {
    if (module.rfind(p, 0) == 0) return true;
  }
  return module.empty();
}

SiteFrames site_frames(const ProcessTrace& trace, uint32_t stack_id, Symbolizer& symbolizer) {
  SiteFrames out;
  auto it = trace.stacks.find(stack_id);
  if (it == trace.stacks.end()) return out;
  for (size_t i = 0; i < it->second.size(); ++i) {
    Frame f = symbolizer.symbolize(it->second[i], i == 0);
    if (f.module == "libsyncscope.so") continue;
    if (out.user_index < 0 && !is_library_module(f.module) && f.symbol != "??" && f.symbol != "_start") {
      out.user_index = static_cast<int>(out.native.size());
    }
    out.native.push_back(std::move(f));
  }
  return out;
}

}  // namespace syncscope
