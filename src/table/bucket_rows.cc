#include "table/bucket_rows.h"

#include <algorithm>

#include "table/arrow_rows.h"
#include "table/schema_evolution.h"

namespace mink::table {

Status VisitBucketRows(storage::StreamStore* storage, const ResolvedTable& table, uint64_t stream,
                       int64_t from, int64_t end,
                       const std::function<Status(Row row, ChangeType type, int64_t offset)>& visit) {
  constexpr size_t kReadBytes = 4 << 20;
  std::vector<int> all(table.types.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  MINK_ASSIGN_OR_RETURN(TableBatchDecoder decoder, TableBatchDecoder::Make(table.d, all));
  int64_t at = from;
  while (at < end) {
    MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage->Read(stream, at, kReadBytes));
    if (r.batches.empty()) return Status::Ok();
    for (const auto& b : r.batches) {
      if (b->base_offset >= end) return Status::Ok();
      MINK_ASSIGN_OR_RETURN(auto decoded, decoder.Decode(b->payload, b->schema_id));
      std::vector<Row> rows = BatchToRows(*decoded, table.types);
      for (size_t i = 0; i < rows.size(); ++i) {
        const int64_t offset = b->base_offset + static_cast<int64_t>(i);
        if (offset < at) continue;
        if (offset >= end) return Status::Ok();
        auto type = b->change_types.empty() ? ChangeType::kAppend
                                            : static_cast<ChangeType>(b->change_types[i]);
        MINK_RETURN_IF_ERROR(visit(std::move(rows[i]), type, offset));
      }
      at = b->end_offset();
    }
    if (at >= r.end_offset) return Status::Ok();
  }
  return Status::Ok();
}

Status VisitBucketBatches(storage::StreamStore* storage, const ResolvedTable& table, uint64_t stream,
                          int64_t from, int64_t end, const std::vector<int>& columns,
                          const std::function<Status(const arrow::RecordBatchPtr&)>& visit) {
  constexpr size_t kReadBytes = 4 << 20;
  MINK_ASSIGN_OR_RETURN(TableBatchDecoder decoder, TableBatchDecoder::Make(table.d, columns));
  std::vector<LogicalType> types;
  for (int c : columns) types.push_back(table.types[static_cast<size_t>(c)]);
  int64_t at = from;
  while (at < end) {
    MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage->Read(stream, at, kReadBytes));
    if (r.batches.empty()) return Status::Ok();
    for (const auto& b : r.batches) {
      if (b->base_offset >= end) return Status::Ok();
      MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, decoder.Decode(b->payload, b->schema_id));
      const int64_t skip = std::max<int64_t>(0, at - b->base_offset);
      const int64_t take = std::min<int64_t>(b->record_count, end - b->base_offset) - skip;
      if (take <= 0) {
        at = b->end_offset();
        continue;
      }
      if (skip > 0 || take < b->record_count) {
        std::vector<Row> rows = BatchToRows(*batch, types);
        std::vector<const Row*> part;
        for (int64_t i = skip; i < skip + take; ++i) part.push_back(&rows[static_cast<size_t>(i)]);
        MINK_ASSIGN_OR_RETURN(batch, RowsToBatch(part, batch->schema(), types));
      }
      MINK_RETURN_IF_ERROR(visit(batch));
      at = b->end_offset();
    }
    if (at >= r.end_offset) return Status::Ok();
  }
  return Status::Ok();
}

}  // namespace mink::table
