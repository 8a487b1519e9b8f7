#include "sites/report_warnings.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace syncscope {
namespace {

void to_stderr(const std::string& message) { std::fprintf(stderr, "syncscope: warning: %s\n", message.c_str()); }

struct Warnings {
  std::mutex mutex;
  ReportWarningSink sink = to_stderr;
  std::set<std::string> said;
};

Warnings& warnings() {
  static Warnings w;
  return w;
}

}  // namespace

void set_report_warning_sink(ReportWarningSink sink) {
  Warnings& w = warnings();
  std::lock_guard<std::mutex> lock(w.mutex);
  w.sink = sink != nullptr ? sink : to_stderr;
}

void warn_once(const std::string& message) {
  Warnings& w = warnings();
  ReportWarningSink sink;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (!w.said.insert(message).second) return;
    sink = w.sink;
  }
  sink(message);
}

}  // namespace syncscope
