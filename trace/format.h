// On-disk framing of a syncscope trace file: one file per recorded process.
// The contract between the recorder (preload/) and every reader (tools/,
// detectors/). Documented in docs/trace-format.md; bump kTraceVersion on any
// incompatible change, and keep readers able to skip record types they do
// not know.
//
//   file    := FileHeader record*
//   record  := RecordHeader payload          (payload padded to 8 bytes)
//
// The collector appends whole records with write(2), so a process killed at
// any moment leaves a file whose complete records are all valid; only the
// last record may be cut short. A clean shutdown ends the file with kEnd.
#pragma once

#include <cstdint>

namespace syncscope {

inline constexpr char kTraceMagic[8] = {'S', 'Y', 'N', 'C', 'S', 'C', 'O', 'P'};
// 2: launches may be aggregated (kLaunchSequence, kLaunchRuns): a reader of
// version 1 would skip them and lose the launches, so it must refuse.
inline constexpr uint32_t kTraceVersion = 2;
inline constexpr uint32_t kOldestTraceVersion = 1;  // what this reader still reads
inline constexpr const char* kTraceFileSuffix = ".sstrace";
// Beside the traces: one line "pid ppid exe" per process that loaded the
// recorder but never called CUDA (so wrote no trace), for the report's count.
inline constexpr const char* kProcessesWithoutCudaFile = "processes-without-cuda.log";
// Payloads above this are treated as corruption, never allocated.
inline constexpr uint32_t kMaxRecordPayload = 64u << 20;
// Deepest native stack the recorder keeps.
inline constexpr uint32_t kMaxStackDepth = 64;
// Deepest Python stack the recorder keeps.
inline constexpr uint32_t kMaxPythonDepth = 48;
// Longest build-id the recorder writes (GNU ld's default sha1 is 20 bytes).
inline constexpr uint32_t kMaxBuildIdLen = 64;

enum FileFlags : uint32_t {
  kFileClockTsc = 1u << 0,  // the recorder timed calls with the TSC (converted to ns)
};

struct FileHeader {
  char magic[8];         // kTraceMagic
  uint32_t version;      // kTraceVersion
  uint32_t header_size;  // sizeof(FileHeader); readers skip unknown tail bytes
  uint32_t pid;
  uint32_t ppid;
  uint64_t start_monotonic_ns;  // CLOCK_MONOTONIC when recording began
  uint64_t start_realtime_ns;   // CLOCK_REALTIME at the same moment
  uint32_t event_size;          // sizeof(Event) used by the writer
  uint32_t flags;               // FileFlags
  uint64_t reserved[2];
};
static_assert(sizeof(FileHeader) == 64);

enum class RecordType : uint32_t {
  kEvents = 1,        // payload: Event[n]                                   (n = size / event_size)
  kStack = 2,         // payload: u32 id, u32 depth, u64 pc[depth]           (innermost first)
  kModule = 3,        // payload: u64 start, u64 end, u64 bias, u32 len, char path[len]
  kThread = 4,        // payload: u32 tid, u32 len, char name[len]
  kProcess = 5,       // payload: u32 klen, char key[klen], u32 vlen, char value[vlen]
  kDrops = 6,         // payload: u32 tid, u32 reserved, u64 dropped (cumulative for that thread)
  kEnd = 7,           // payload: EndPayload; present only after a clean shutdown
  kPyCode = 8,        // payload: u32 code id, u32 first line, u32 flen, char file[flen], u32 nlen, char name[nlen]
  kPyStack = 9,       // payload: u32 stack id, u32 depth, u64 frame[depth] ((code id << 32) | line), innermost first
  kGpuActivity = 10,  // payload: u32 entry_size, u32 reserved, GpuRecord[n] (trace/gpu_record.h)
  kString = 11,       // payload: u32 id, u32 len, char text[len] (kernel names of kGpuActivity)
  // payload: u64 start, u32 len, u8 build_id[len]: the GNU build-id of the
  // latest kModule before it with that start (older readers skip it)
  kModuleBuildId = 12,
  // Aggregated launches (trace/launch_runs.h), since version 2:
  kLaunchSequence = 13,  // payload: u32 id, u32 count, Event[count] (times, tid, stack 0)
  kLaunchRuns = 14,      // payload: LaunchRun[n] (each after its sequence)
};

struct RecordHeader {
  uint32_t type;  // RecordType
  uint32_t size;  // payload bytes, excluding padding to the next multiple of 8
};
static_assert(sizeof(RecordHeader) == 8);

struct EndPayload {
  uint64_t end_monotonic_ns;
  uint64_t events_written;
  uint64_t events_dropped;  // events lost because a ring was full
  uint64_t stacks_dropped;  // stacks not interned because the stack table was full
  // Added without a version change (readers take the first 32 bytes of an
  // older end record, and older readers ignore these): events recorded and
  // never written, by reason. recorded = written + all three drop counts.
  uint64_t events_unwritten_at_exit = 0;  // still in the rings when the last drain's time bound ran out
  uint64_t events_lost_no_memory = 0;     // the writer could not buffer them
  uint64_t events_over_size_limit = 0;    // past SYNCSCOPE_MAX_TRACE_MB
};
static_assert(sizeof(EndPayload) == 56);
constexpr uint32_t kEndPayloadV1Size = 32;

constexpr uint32_t padded_size(uint32_t size) { return (size + 7u) & ~7u; }

}  // namespace syncscope
