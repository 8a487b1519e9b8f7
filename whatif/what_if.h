// What a fix changes in a replayed program (issue 27, docs/what-if.md): each
// Fix rewrites the ops of one finding site, and the changed program is
// replayed against the recorded one. A pure function of the program.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "whatif/replay.h"

namespace syncscope::whatif {

enum class Fix : uint8_t {
  // A read-back becomes an asynchronous copy read later: the copy stays on
  // its stream, the host no longer waits for it (nor for the syncs of the
  // same site).
  kReadLater,
  // An explicit sync (stream, device, event) is dropped; a site's copy, if
  // any, stays and no longer blocks.
  kDropSync,
  // A blocking or pageable copy becomes a pinned, non-blocking one: queued,
  // not waited for. Its host time stays as recorded (staging included): the
  // prediction does not count the staging copy saved.
  kPinnedAsync,
  // A copy queued on the compute stream moves to a side stream: it no longer
  // waits for compute queued before it, and the compute stream waits for it
  // (an event) before what follows.
  kSideStream,
  // The call goes altogether, its host time with it: an allocation or free
  // the caching allocator would have served (allocator churn), a free's
  // device-wide sync and unmapping with it.
  kDropCall,
  // The read-back's statement runs every N steps instead of each (the fix
  // the hints of print(t), .item() and .cpu() name first: print or log
  // every N steps; finding_fixes.h): the host time of every call of one execution of the statement
  // goes, with the host's work between them (statement_span.h), and so do
  // its waits; what its calls queued stays queued. The host's work before
  // its first call and after its last goes only where Python line events
  // say where the statement began and ended (Python 3.12+).
  kEveryNSteps,
  // The statement's work goes, replaced by next to none: an index given as
  // a Python list (x[:, [-1]]) becomes a slice, a view made without a CUDA
  // call, or an index tensor made once. Replayed as every-n-steps (the
  // statement's calls, their waits and the host work the statement spans).
  kDropStatement,
  // A tensor used as a bool is decided on the GPU instead (`torch.where`, a
  // count kept on the GPU): the read-back goes altogether, its copy and its
  // waits with the host's work between them, where read-later keeps the
  // copy. The statement's other work stays, and one launch replaces the
  // read, its call taking the program's median launch call: deciding on the
  // GPU is not free where the host is the bottleneck (on an H200,
  // branch_on_tensor.py's fixed twin, whose two added launches the replay
  // did not count, measured 1.3 to 3.3 points of the step below the
  // prediction in its last four calls). The Python work that dispatches it
  // is not counted.
  kComputeOnGpu,
  // Boolean-mask indexing (x[mask], nonzero) becomes an operation of fixed
  // shape (torch.where, a multiply by the mask, ignore_index): the read-back
  // of the count goes, with everything of the statement after it, the work
  // the count sized (nonzero's selection, the gather, the host work of their
  // dispatch), where Python line events say where the statement ends
  // (statement_span.h); what they queued stays queued, standing for the
  // fixed-shape kernel. The statement's work before the read-back (the
  // mask, nonzero's count) stays, standing for the fixed-shape operation's
  // own dispatch. A floor: the gather's backward (index_put_, on autograd's
  // thread) goes too.
  kFixedShape,
  // A library's setting removes its check (a known site's "replay",
  // sites/known_sites.json: GradScaler's found_inf under bf16): the
  // read-back goes, its copy and its waits with the host's work between
  // them, as compute-on-gpu, and nothing replaces it. A floor: the setting
  // may also remove work that served the check outside the read-back's
  // calls (the scaler's unscale and scale-update kernels), which the replay
  // counts where the known site says how many operations that is
  // (SiteFix::drops_operations), and not the library's Python work around
  // them.
  kDropReadBack,
};

// "read-later", "drop-sync", "pinned-async", "side-stream", "drop-call", "every-n-steps", "drop-statement",
// "compute-on-gpu", "fixed-shape", "drop-read-back"
const char* fix_name(Fix fix);

// The fix of that name; nullopt for none (a known site's "replay" field).
std::optional<Fix> fix_from_name(std::string_view name);

// How much of the finding's statement (statement_span.h) a fix takes out of
// the step, so that the replay needs its span: all of it (every-n-steps,
// drop-statement), its read-back and what follows it (fixed-shape), or none
// beyond the site's own calls.
enum class StatementPart : uint8_t { kNone, kWhole, kFromItsReadBack };
StatementPart statement_part(Fix fix);

// Whether the fix takes the host's work between its site's consecutive
// calls with them (a read-back's copy and its wait): the statement-removing
// fixes, compute-on-gpu, fixed-shape and drop-read-back.
bool removes_work_between_its_calls(Fix fix);

// Whether what the replay says `fix` saves is a floor, because the fix also
// removes or speeds up host work the replay keeps as recorded:
// - drop-call: dropping an allocator call also made the host work after it
//   faster. On an H200 the four allocator twins saved 1.2 to 2.3 times the
//   prediction, and with empty_cache() in the loop the rest of the step's
//   host work took 15-24% longer (docs/what-if.md).
// - fixed-shape: the backward of the gather the count sized (index_put_, on
//   autograd's thread) goes too, and without Python line events so does
//   the statement's work after the read-back. On an H200 masked_indexing.py's
//   twin saved 10.2% and 10.4% of a step on two machines against at least
//   6.9% and 6.7%, realistic/varlen_batches.py's 5.4% against at least 2.3%
//   (the read-back alone had predicted 1.5% and 0.7%).
// - every-n-steps and drop-statement: the statement's Python work before its first CUDA call
//   and after its last (print(loss) formatting and writing its line) goes
//   too, but no call marks where it starts and ends. print_tensor.py's
//   prediction went from 2% to 27% of the step with the work between its
//   calls; its fixed twin measured 48%. Where Python line events bound
//   every execution of the statement (Python 3.12+, statement_span.h) the
//   work is seen, and the prediction is no floor
//   (finding_predictions.h's FindingPrediction::floor).
// - drop-read-back: the library setting that removes a check may remove
//   work besides the read-back (GradScaler's kernels under bf16).
bool saving_is_a_floor(Fix fix);

// Whether what the replay says `fix` saves is a ceiling, because the fix
// adds host work the recording does not hold: side-stream. The fixed
// program switches streams, records an event for `wait_stream` and calls
// `record_stream` for each copy; on an H200 that cost its twin
// (copies_on_compute_stream_fixed.py) about 105 µs a step of host time, 16
// µs of it in CUDA calls, on a 1.1 ms host-bound step, which measured 5 to
// 16% slower where the replay said 0%. The replay counts the event's
// record and wait, each at the program's median launch call, and the
// Python work of the fix's operations at the program's median dispatch
// (kSideStreamOperations), not what record_stream costs the allocator at
// the free. Where the host has slack (a GPU-bound loop) the added work
// hides behind the GPU, and the ceiling is near the saving.
bool saving_is_a_ceiling(Fix fix);

// The Python operations a side stream adds for each copy it moves: the stream
// switch around the copy (`with torch.cuda.stream(s):`), `wait_stream` and
// `record_stream`. Each costs the host what one operation costs it before a
// launch (Op::host_before_ns, the recorder's capture left out; the median over
// the program's launches, its threads merged): Python and framework dispatch.
// Not the work before the moved copies: copies_on_compute_stream.py's one copy
// a step follows the loop's top and the optimizer's return, and counting three
// of that predicted its fixed twin 321.7 µs a step slower where it measured
// 120.1 µs (H100, 2026-12-07). On an H100, a loop of one pinned batch copy and
// three kernels ran 85.4 µs an iteration plain and 133.0 µs with the copy moved
// so (medians of 15 interleaved rounds): 48 µs, about three such operations of
// a 17 µs-per-operation loop. Timed so (2026-12-07, four calls, one or three
// recordings each), copies_on_compute_stream.py's twin cost 83 to 98 µs a step
// where the replay said 87, 121, 117 and 98: the median dispatch is a central
// figure of a broad spread (quartiles about 14 and 50 µs); twice the measured
// median saving lay above the "at most", inside the processes' 95% interval
// (docs/what-if.md).
inline constexpr uint64_t kSideStreamOperations = 3;

struct SiteFix {
  uint32_t site = 0;
  Fix fix = Fix::kDropSync;
  // Drop-read-back: the operations the library setting removes besides the
  // read (a known site's drops_operations: GradScaler under bf16, seven),
  // whose launches no recorded frame or name ties to the site. Once for
  // each execution of the site, each costs the host what one launching
  // operation costs this program (the median dispatch before a launch, the
  // recorder's capture left out, and the median launch call), taken off the
  // host work of the ops that follow it; their GPU work stays. The saving
  // stays a floor: the Python work of the library around them (GradScaler's
  // loop over every parameter) is not counted.
  uint32_t drops_operations = 0;
};

// What the fixes of one prediction act on, op by op, for a program prepared
// once without them (finding_predictions.cpp makes it from
// trace_program.h's sites_of_ops and statement_span.h).
struct OpMarks {
  std::vector<uint32_t> site;  // the site whose fix changes the op (0: none)
  // The host work before the op (Op::host_before_ns) that an every-n-steps
  // statement (or a compute-on-gpu read-back) takes with it. Empty:
  // work_between_statement_calls().
  std::vector<uint64_t> statement_host_ns;
};

// Per op, the host work before it that an every-n-steps statement (or a
// compute-on-gpu read-back, removes_work_between_its_calls) takes with it
// from its calls alone: the work between two consecutive ops of the site
// (`site_of_op`), a read-back's copy and its sync among them.
std::vector<uint64_t> work_between_statement_calls(const Program& program, const std::vector<SiteFix>& fixes,
                                                   const std::vector<uint32_t>& site_of_op);

// The program with each given site's ops changed by its fix. `marks`: the
// sites to read instead of the ops' own (Op::site) when not null. For
// every-n-steps the site's ops are its statement's (statement_span.h).
Program apply_fixes(const Program& program, const std::vector<SiteFix>& fixes, const OpMarks* marks = nullptr);

}  // namespace syncscope::whatif
