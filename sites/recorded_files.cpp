#include "sites/recorded_files.h"

#include <cstdlib>
#include <cstring>

#include "trace/environment.h"

namespace syncscope {

bool report_reads_recorded_files() {
  static const bool reads = [] {
    const char* value = std::getenv(env::kReportReadsRecordedFiles);
    return value == nullptr || std::strcmp(value, "0") != 0;
  }();
  return reads;
}

}  // namespace syncscope
