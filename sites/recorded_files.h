// Whether the report reads the files a trace names: the recorded modules'
// ELF symbol tables (sites/symbolizer.cpp) and the Python source lines
// (sites/site_frames.cpp). Yes unless SYNCSCOPE_REPORT_READS_RECORDED_FILES=0
// (trace/environment.h): then a trace reports the same on any machine,
// whatever libraries and sources it has, which the golden reports need
// (tests/golden_reports).
#pragma once

namespace syncscope {

bool report_reads_recorded_files();

}  // namespace syncscope
