#pragma once
// What the log and primary-key writers share: a batch of a table's rows as a bucket's stream
// stores it, and an append submitted to the stream whose commit a write waits for (writes
// submit every bucket's batch first, then wait for all of them).

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "storage/stream_store.h"
#include "table/arrow_rows.h"
#include "table/catalog.h"
#include "table/payload.h"
#include "table/requests.h"

namespace mink::table {

struct PendingAppend {
  std::string label;
  uint64_t stream_id = 0;
  int64_t base = 0;
  int64_t end = 0;
  std::future<Status> done;  // the commit's status
  bool appended = false;     // false: nothing was submitted
};

// The stored batch of `rows` of `table` for a write of `request` (its writer and sequence), its
// payload encoded with the table's compression; change types are the caller's to add.
inline Status FillBatchInput(const ResolvedTable& table, const std::vector<const Row*>& rows,
                             const WriteRequest& request, storage::BatchInput* input) {
  MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(rows, table.schema, table.types));
  input->record_count = static_cast<int32_t>(rows.size());
  input->writer_id = request.writer_id;
  input->batch_sequence = request.sequence;
  input->schema_id = table.d.schema.schema_id;
  MINK_ASSIGN_OR_RETURN(input->payload, EncodePayload(*batch, table.codec));
  return Status::Ok();
}

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
