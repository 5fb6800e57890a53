#include "table/union_reader.h"

#include <algorithm>
#include <map>

#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/changelog.h"
#include "table/bucket_rows.h"

namespace mink::table {
namespace {

constexpr size_t kBatchRows = 8192;

std::vector<LogicalType> ProjectedTypes(const ResolvedTable& table, const std::vector<int>& columns) {
  std::vector<LogicalType> types;
  for (int c : columns) types.push_back(table.types[static_cast<size_t>(c)]);
  return types;
}

}  // namespace

Status UnionReader::Read(const ResolvedTable& table, const ReadRequest& request,
                         const arrow::SchemaPtr& schema, const std::vector<int>& columns,
                         const BatchSink& sink) {
  if (!table.d.lake_enabled) {
    return FailedPreconditionError("table " + table.name +
                                   " is not tiered: a union read needs a table tiered into the "
                                   "lake (mink table create ... --lake iceberg)");
  }
  LakeSource* lake = lake_.load();
  if (lake == nullptr) return FailedPreconditionError("this node reads no lake");
  if (request.meta || request.timestamp || request.follow) {
    return InvalidArgumentError("a union read has no meta columns and does not follow");
  }
  MINK_ASSIGN_OR_RETURN(auto targets, catalog_->Buckets(table, request.partition, request.bucket));
  int64_t remaining = request.limit < 0 ? INT64_MAX : request.limit;
  std::vector<Row> pending;
  // Sends the pending rows (projected) when there are enough of them, or `all` of them.
  auto flush = [&](bool all) -> Result<bool> {
    while (!pending.empty() && (all || pending.size() >= kBatchRows)) {
      const size_t n = std::min({pending.size(), kBatchRows, static_cast<size_t>(remaining)});
      std::vector<const Row*> rows;
      for (size_t i = 0; i < n; ++i) rows.push_back(&pending[i]);
      MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(rows, table.schema, table.types));
      MINK_ASSIGN_OR_RETURN(auto projected, batch->SelectColumns(columns));
      MINK_ASSIGN_OR_RETURN(auto out, arrow::RecordBatch::Make(schema, projected->num_rows(),
                                                               projected->columns()));
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
      remaining -= static_cast<int64_t>(n);
      if (!sink(out)) return false;
      if (remaining <= 0) return false;
    }
    return true;
  };
  // Sends pending rows that are already projected (the last, cut batch of a log table).
  auto flush_projected = [&](bool) -> Result<bool> {
    std::vector<const Row*> rows;
    for (const auto& r : pending) rows.push_back(&r);
    MINK_ASSIGN_OR_RETURN(auto out, RowsToBatch(rows, schema, ProjectedTypes(table, columns)));
    pending.clear();
    remaining = 0;
    sink(out);
    return false;
  };
  for (const auto& target : targets) {
    MINK_ASSIGN_OR_RETURN(LakeSource::BucketRows lake_rows, lake->ReadBucket(table, target.stream_id));
    if (!table.d.has_primary_key()) {
      // A log table: the lake's batches, then the log's, projected, never taken apart.
      auto send = [&](const arrow::RecordBatchPtr& batch) -> Result<bool> {
        MINK_ASSIGN_OR_RETURN(auto projected, batch->SelectColumns(columns));
        if (projected->num_rows() > remaining) {
          for (auto& row : BatchToRows(*projected, ProjectedTypes(table, columns))) {
            if (static_cast<int64_t>(pending.size()) >= remaining) break;
            pending.push_back(std::move(row));
          }
          MINK_ASSIGN_OR_RETURN(bool more, flush_projected(true));
          (void)more;
          return false;
        }
        MINK_ASSIGN_OR_RETURN(auto out, arrow::RecordBatch::Make(schema, projected->num_rows(),
                                                                 projected->columns()));
        remaining -= out->num_rows();
        return sink(out) && remaining > 0;
      };
      for (const auto& batch : lake_rows.rows) {
        MINK_ASSIGN_OR_RETURN(bool more, send(batch));
        if (!more) return Status::Ok();
      }
      std::vector<int> all(table.types.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
      bool more = true;
      MINK_RETURN_IF_ERROR(VisitBucketBatches(storage_, table, target.stream_id,
                                              lake_rows.tiered_offset, INT64_MAX, all,
                                              [&](const arrow::RecordBatchPtr& batch) -> Status {
                                                if (!more) return Status::Ok();
                                                MINK_ASSIGN_OR_RETURN(more, send(batch));
                                                return Status::Ok();
                                              }));
      if (!more) return Status::Ok();
      continue;
    }
    // A primary-key table: the lake's rows by key, then the changelog after them.
    std::map<std::string, Row> rows;
    auto key_of = [&](const Row& row) -> Result<std::string> {
      std::vector<Value> key;
      for (int k : table.pk) key.push_back(row[static_cast<size_t>(k)]);
      return EncodeCompactedKey(key, table.pk_types);
    };
    for (const auto& batch : lake_rows.rows) {
      for (auto& row : BatchToRows(*batch, table.types)) {
        MINK_ASSIGN_OR_RETURN(std::string key, key_of(row));
        rows[key] = std::move(row);
      }
    }
    MINK_RETURN_IF_ERROR(VisitBucketRows(storage_, table, target.stream_id, lake_rows.tiered_offset,
                                  INT64_MAX, [&](Row row, ChangeType type, int64_t) -> Status {
                                    if (type == ChangeType::kUpdateBefore) return Status::Ok();
                                    MINK_ASSIGN_OR_RETURN(std::string key, key_of(row));
                                    if (type == ChangeType::kDelete) {
                                      rows.erase(key);
                                    } else {
                                      rows[key] = std::move(row);
                                    }
                                    return Status::Ok();
                                  }));
    for (auto& [key, row] : rows) pending.push_back(std::move(row));
    MINK_ASSIGN_OR_RETURN(bool more, flush(false));
    if (!more) return Status::Ok();
  }
  MINK_ASSIGN_OR_RETURN(bool more, flush(true));
  (void)more;
  return Status::Ok();
}

}  // namespace mink::table
