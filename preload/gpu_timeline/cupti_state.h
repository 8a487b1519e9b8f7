// What the GPU timeline's files share: the control state (start, stop,
// sampling, detaching; under its mutex), what the buffer callbacks hand to
// the collector (under its own mutex), and the notes for the trace's
// process info. One instance of each for the process, made afresh in a
// forked child (after_fork_child).
//
// Namespace cupti: the GPU timeline's internals, shared by its files;
// nothing outside preload/gpu_timeline/ includes these headers (the rest of
// the recorder knows cupti_timeline.h).
#pragma once

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "preload/gpu_timeline/cupti_api.h"
#include "trace/gpu_record.h"

namespace syncscope::preload::cupti {

// Control state: start/stop/periodic flush, under g_control.
struct Control {
  std::mutex mutex;
  void* library = nullptr;
  std::string library_path;
  CuptiApi api;
  bool active = false;
  CUpti_SubscriberHandle subscriber = nullptr;
  std::vector<CUpti_ActivityKind> enabled;
  std::vector<std::pair<CUpti_CallbackDomain, uint32_t>> enabled_apis;  // per-cbid enabling, to undo
  uint64_t last_flush_ns = 0;
  bool at_exit_registered = false;
  // Sampling (docs/gpu-timeline.md, "Sampling"): every kind above is on for
  // a burst of burst_ns every period_ns (0: always). Toggled by the
  // collector's drain, never in a hooked call.
  uint64_t burst_ns = 0, period_ns = 0;
  bool recording = false;        // the kinds are enabled now
  uint64_t next_open_ns = 0;     // the next burst's scheduled opening
  uint64_t burst_open_ns = 0;   // when the open burst's kinds came on
  uint64_t burst_close_ns = 0;  // when it is due to close
  // Detaching between bursts ("Sampling"): CUPTI, once its kinds have been
  // on, keeps launches dearer with every kind off, until cuptiFinalize.
  bool detach_between_bursts = false;
  bool detaching = false;  // asked for; the next CUDA call's exit finalizes
  bool detached = false;   // finalized: no CUPTI call until the next burst (any would attach it again)
  bool system_tids = false, timestamp_callback = false;  // as at start, for each attach after
};

// The detach handshake between the collector (asks, and settles) and the
// CUDA call whose exit callback finalizes CUPTI (CUPTI's rule: cuptiFinalize
// only at the exit of a CUDA call, or with nothing in flight).
enum DetachState : int { kAttached, kDetachAsked, kFinalizing, kFinalized };
extern std::atomic<int> g_detach;

// What the buffer callbacks hand to the collector, under its own mutex
// (CUPTI may call back on its thread while the collector holds g_control).
struct Pending {
  std::mutex mutex;
  std::vector<GpuRecord> records;
  std::vector<std::pair<uint32_t, std::string>> new_strings;
  std::vector<std::pair<std::string, std::string>> notes;
  std::unordered_map<std::string, uint32_t> names;  // kernel name -> string id, per trace file
  uint64_t dropped_here = 0;                        // pending list full
  uint64_t dropped_cupti = 0;                       // CUPTI's own count
  // CUPTI numbers its calls from 1 again after each detach (seen on an
  // H100), and may hand over some of an attach's records only after the
  // next attach; the trace's correlation ids must stay unique and in issue
  // order across bursts. So each attach is an epoch, from the time it
  // began, whose ids are moved past every id recorded before it; a record
  // belongs to the epoch its start time falls in (epoch_of).
  struct Epoch {
    uint64_t since_ns = 0;  // trace clock
    uint32_t base = 0;
    bool base_set = false;  // set from the first buffer holding a record of the epoch
  };
  std::vector<Epoch> epochs{Epoch{0, 0, true}};
  uint32_t max_correlation = 0;
};

extern Control* g_control;  // never destroyed: used at exit
extern Pending* g_pending;
// This process is a fork's child: CUPTI does not follow fork, and the
// parent's records are not the child's.
extern bool g_forked_child;

// A process-info note for the trace, written by the collector's next drain.
void note(std::string key, std::string value);
// The timeline off, with why (a warning when the user should hear it).
void turn_off(const std::string& why, bool warn);

// pthread_atfork's child handler: the child's state made afresh.
void after_fork_child();

}  // namespace syncscope::preload::cupti
