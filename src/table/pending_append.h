#pragma once
// An append submitted to a bucket's stream whose commit a write waits for: log and
// primary-key writes submit every bucket's batch first, then wait for all of them.

#include <cstdint>
#include <future>
#include <memory>
#include <string>

#include "storage/stream_store.h"

namespace mink::table {

struct PendingAppend {
  std::string label;
  uint64_t stream_id = 0;
  int64_t base = 0;
  int64_t end = 0;
  std::future<Status> done;  // the commit's status
  bool appended = false;     // false: nothing was submitted
};

// Submits `input` to the stream; the offsets are known at once, the commit later.
inline Result<PendingAppend> SubmitAppend(storage::StreamStore* storage, uint64_t stream_id,
                                          const std::string& label, storage::BatchInput input) {
  PendingAppend p;
  p.label = label;
  p.stream_id = stream_id;
  auto committed = std::make_shared<std::promise<Status>>();
  p.done = committed->get_future();
  const int32_t count = input.record_count;
  MINK_ASSIGN_OR_RETURN(p.base, storage->Append(stream_id, std::move(input),
                                                [committed](Status s) { committed->set_value(s); }));
  p.end = p.base + count;
  p.appended = true;
  return p;
}

}  // namespace mink::table
