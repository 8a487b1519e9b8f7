#include "preload/gpu_timeline/cupti_records.h"

#include "preload/gpu_timeline/clock_calibration.h"

namespace syncscope::preload::cupti {

Filter g_filter;

namespace {

int8_t device_of(uint32_t id) { return id <= 127 ? static_cast<int8_t>(id) : int8_t{-1}; }

uint32_t intern_name(Pending& p, const char* name) {
  if (name == nullptr) return 0;
  auto [it, inserted] = p.names.emplace(name, static_cast<uint32_t>(p.names.size() + 1));
  if (inserted) p.new_strings.emplace_back(it->second, it->first);
  return it->second;
}

// The fields every record of GPU work has (kernel, memcpy, memset), whose
// CUPTI structs differ in layout but not in these names.
template <typename Work>
void copy_work_fields(const Work* w, GpuRecord* r) {
  r->start_ns = w->start;
  r->end_ns = w->end;
  r->correlation_id = w->correlationId;
  r->stream_id = w->streamId;
  r->context_id = w->contextId;
  r->graph_id = w->graphId;
  r->device = device_of(w->deviceId);
}

}  // namespace

bool convert(const CUpti_Activity* activity, Pending& p, GpuRecord* out) {
  GpuRecord r{};
  r.device = -1;
  switch (activity->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kKernel);
      copy_work_fields(k, &r);
      r.name_id = intern_name(p, k->name);
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kMemcpy);
      copy_work_fields(m, &r);
      r.bytes = m->bytes;
      r.copy_kind = m->copyKind;
      r.src_kind = m->srcKind;
      r.dst_kind = m->dstKind;
      if (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) r.flags |= kGpuFlagAsync;
      break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kMemset);
      copy_work_fields(m, &r);
      r.bytes = m->bytes;
      r.src_kind = static_cast<uint8_t>(m->memoryKind);
      if (m->flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) r.flags |= kGpuFlagAsync;
      break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(activity);
      r.kind = static_cast<uint8_t>(GpuKind::kSync);
      r.start_ns = s->start;
      r.end_ns = s->end;
      r.correlation_id = s->correlationId;
      r.stream_id = s->streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : s->streamId;
      r.context_id = s->contextId;
      r.name_id = static_cast<uint32_t>(s->type);
      break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(activity);
      bool runtime = activity->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      if (runtime && g_filter.runtime && g_filter.runtime_keep.count(a->cbid) == 0) return false;
      if (!runtime && g_filter.driver && g_filter.driver_keep.count(a->cbid) == 0) return false;
      r.kind = static_cast<uint8_t>(runtime ? GpuKind::kRuntimeApi : GpuKind::kDriverApi);
      r.start_ns = a->start;
      r.end_ns = a->end;
      r.correlation_id = a->correlationId;
      r.name_id = a->cbid;
      r.tid = a->threadId;
      r.result = a->returnValue;
      break;
    }
    default:
      return false;
  }
  r.start_ns = to_trace_clock(r.start_ns);
  r.end_ns = to_trace_clock(r.end_ns);
  *out = r;
  return true;
}

}  // namespace syncscope::preload::cupti
