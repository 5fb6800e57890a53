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
  for (const auto& target : targets) {
    MINK_ASSIGN_OR_RETURN(LakeSource::BucketRows lake_rows, lake->ReadBucket(table, target.stream_id));
    if (!table.d.has_primary_key()) {
      for (const auto& batch : lake_rows.rows) {
        for (auto& row : BatchToRows(*batch, table.types)) pending.push_back(std::move(row));
        MINK_ASSIGN_OR_RETURN(bool more, flush(false));
        if (!more) return Status::Ok();
      }
      bool more = true;
      Status s = VisitBucketRows(storage_, table, target.stream_id, lake_rows.tiered_offset, INT64_MAX,
                          [&](Row row, ChangeType, int64_t) -> Status {
                            if (!more) return Status::Ok();
                            pending.push_back(std::move(row));
                            MINK_ASSIGN_OR_RETURN(more, flush(false));
                            return Status::Ok();
                          });
      MINK_RETURN_IF_ERROR(s);
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
