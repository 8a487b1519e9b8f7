#include "report/recording_problem.h"

#include <cstdlib>

#include "trace/recording_status.h"

namespace syncscope {

std::string problem_message(const RecordingProblem& p) {
  const std::string who = p.pid != 0 ? "pid " + std::to_string(p.pid) : std::string("a process");
  const std::string& d = p.detail;
  if (p.kind == kStatusTraceOpenFailed) return who + " recorded nothing: " + d;
  if (p.kind == kStatusWriteFailed) return who + " stopped recording, its trace could not be written: " + d;
  if (p.kind == kStatusTraceRemoved) return who + ": its trace " + d + " was deleted during the run";
  if (p.kind == kStatusEventsDropped) {
    // "N" (rings were full), or "N (reasons)" from the end record.
    if (d.find('(') != std::string::npos) return who + " dropped events: " + d;
    return who + " dropped " + d + " events (a thread's ring was full; raise --ring-events)";
  }
  if (p.kind == kStatusRecorderFailed) return who + " recorded nothing: " + d;
  if (p.kind == kStatusFlushTimeout) return who + ": " + d;
  if (p.kind == kStatusDirectoryRemoved) return "the output directory " + d + " was deleted during the run";
  if (p.kind == kStatusOutputUnusable) return "nothing could be recorded: " + d;
  if (p.kind == kStatusTraceUnreadable) return "a trace could not be read: " + d;
  if (p.kind == kStatusMalformed) return "the recorder reported something unreadable: " + d;
  if (p.kind == kStatusSessionEmpty) {
    return who + ": the attach session recorded no CUDA call (" + d +
           "); if it was calling CUDA, its calls went unseen (docs/attach.md)";
  }
  if (p.kind == kStatusTraceIncomplete) {
    return who + "'s trace did not end cleanly (" + d + "): its last calls are missing";
  }
  return who + ": " + p.kind + (d.empty() ? "" : " " + d);  // a newer recorder's kind
}

void add_problem(std::vector<RecordingProblem>* problems, RecordingProblem problem) {
  for (RecordingProblem& p : *problems) {
    if (p == problem) return;
    if (problem.kind == kStatusEventsDropped && p.kind == problem.kind && p.pid == problem.pid) {
      if (std::strtoull(problem.detail.c_str(), nullptr, 10) > std::strtoull(p.detail.c_str(), nullptr, 10)) {
        p.detail = problem.detail;
      }
      return;
    }
  }
  problems->push_back(std::move(problem));
}

}  // namespace syncscope
