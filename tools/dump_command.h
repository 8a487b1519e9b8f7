// `syncscope dump TRACE_FILE_OR_DIR`: what a trace file holds, for people
// debugging a recording (or the recorder): the header, process facts,
// completeness, per-API counts, threads, stack tables; optionally every
// event, the interned stacks symbolised and the program's segmentation into
// phases and steps. `--json` prints the same as one JSON document (the GPU
// checks in tests/gpu/ read it).
//
// Exit status: 0 when every trace could be read (an incomplete trace is
// printed with why it is incomplete, and still 0), 1 when the path holds no
// trace or a trace could not be read at all (not a syncscope trace, an
// unsupported version, a file cut inside its header); the traces that could
// be read are printed all the same.
//
// The JSON document (dump_version 1; times in ns, relative ones to the
// header's start_monotonic_ns):
//   {"dump_version", "processes_without_cuda", "errors": [{"file", "error"}],
//    "traces": [{"file", "version", "pid", "ppid", "start_monotonic_ns",
//      "start_realtime_ns", "event_size", "clock", "argv", "cuda_runtime",
//      "process_info": [{"key", "value"}], "complete", "truncation",
//      "events_dropped", "stacks_dropped", "counts": {events, stacks,
//      python_stacks, python_code, modules, threads}, "span_ns",
//      "apis": {NAME: {id, family, count, bytes, host_ns, copies: {"D2H/pinned": n},
//               streams: {"<handle>": n}, [capturing], [errors], [stack_symbols]}},
//      "threads": [{tid, name, events, host_ns}],
//      with --events "events": [{start_ns, duration_ns, tid, api, api_id, stream,
//               bytes, dst, src, stack_id, device, flags, [direction, host_mem],
//               [result], [python: {file, line, function}]}],
//      with --stacks "stacks": [{id, events, native: [{pc, module, symbol, offset}],
//               python: [{file, line, function, code_id}]}], "modules",
//      with --phases "phases": {steps_detected, main, phases: [{name, source, steps,
//               calls_per_step, step_ns, median_step_ns, start_ns, end_ns,
//               interrupted_steps, marker_stack_id, events}], warmup_events,
//               steady_events_without_phase, teardown_events}}]}
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "report/trace_dump.h"
#include "segmentation/steps.h"

namespace CLI {
class App;
}

namespace syncscope {

struct SubcommandContext;

struct DumpOptions : DumpSections {
  std::string path;   // a trace file, or a directory of *.sstrace files
  bool json = false;  // one JSON document instead of text
  StepOptions steps;  // as `syncscope report --warmup/--warmup-steps`
};

// Prints to `out`; errors go to the log (standard error).
int dump_command(const DumpOptions& options, std::ostream& out);
// `syncscope dump`, its options and its callback (tools/subcommand.h).
void add_dump_command(CLI::App& app, SubcommandContext& context);
int dump_command(const DumpOptions& options);  // to standard output

}  // namespace syncscope
