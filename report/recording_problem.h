// What kept a recording from being complete: a process that could not
// create or write its trace, a trace deleted mid-run, events dropped by
// full rings, a trace that cannot be read. A report with any of these says
// so first, and a gate never passes on it (docs/ci.md, "Exit status").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

struct RecordingProblem {
  uint32_t pid = 0;    // the process concerned; 0 when none is known (the output directory)
  std::string kind;    // one of the kinds in trace/recording_status.h
  std::string detail;  // kind-specific: an error, a path, a count

  bool operator==(const RecordingProblem& o) const { return pid == o.pid && kind == o.kind && detail == o.detail; }
};

// One sentence for people: which process, what happened, what it costs.
std::string problem_message(const RecordingProblem& problem);

// Adds `problem` unless already listed. The same process's drop count can
// come from its trace and from its status line (a later, larger figure):
// one entry per process remains, with the largest count.
void add_problem(std::vector<RecordingProblem>* problems, RecordingProblem problem);

}  // namespace syncscope
