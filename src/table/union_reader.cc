#include "table/union_reader.h"

#include <algorithm>
#include <deque>
#include <future>
#include <map>

#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/changelog.h"
#include "table/bucket_rows.h"

namespace mink::table {
namespace {

constexpr size_t kBatchRows = 8192;
constexpr size_t kReadAhead = 4;  // buckets whose lake rows are decoded at once (docs/performance.md)

std::vector<LogicalType> ProjectedTypes(const ResolvedTable& table, const std::vector<int>& columns) {
  std::vector<LogicalType> types;
  for (int c : columns) types.push_back(table.types[static_cast<size_t>(c)]);
  return types;
}

// What the read needs of the lake: the projected columns (and a primary-key table's key, which
// the merge with the log needs), in schema order, and the reader's filters.
LakeScan ScanOf(const ResolvedTable& table, const ReadRequest& request, const std::vector<int>& columns) {
  LakeScan scan;
  scan.columns = columns;
  if (table.d.has_primary_key()) scan.columns.insert(scan.columns.end(), table.pk.begin(), table.pk.end());
  std::sort(scan.columns.begin(), scan.columns.end());
  scan.columns.erase(std::unique(scan.columns.begin(), scan.columns.end()), scan.columns.end());
  scan.filters = request.lake_filters;
  return scan;
}

// Where each of `columns` is among the scan's columns.
std::vector<int> PositionsIn(const std::vector<int>& scan_columns, const std::vector<int>& columns) {
  std::vector<int> out;
  for (int c : columns) {
    out.push_back(static_cast<int>(std::lower_bound(scan_columns.begin(), scan_columns.end(), c) -
                                   scan_columns.begin()));
  }
  return out;
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
  const LakeScan scan = ScanOf(table, request, columns);
  std::vector<LogicalType> scan_types;
  for (int c : scan.columns) scan_types.push_back(table.types[static_cast<size_t>(c)]);
  int64_t remaining = request.limit < 0 ? INT64_MAX : request.limit;
  const std::vector<LogicalType> projected_types = ProjectedTypes(table, columns);
  std::vector<Row> pending;  // projected
  // Sends the pending rows when there are enough of them, or `all` of them.
  auto flush = [&](bool all) -> Result<bool> {
    while (!pending.empty() && (all || pending.size() >= kBatchRows)) {
      const size_t n = std::min({pending.size(), kBatchRows, static_cast<size_t>(remaining)});
      std::vector<const Row*> rows;
      for (size_t i = 0; i < n; ++i) rows.push_back(&pending[i]);
      MINK_ASSIGN_OR_RETURN(auto out, RowsToBatch(rows, schema, projected_types));
      pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(n));
      remaining -= static_cast<int64_t>(n);
      if (!sink(out)) return false;
      if (remaining <= 0) return false;
    }
    return true;
  };
  // The lake's share of the next buckets is read ahead, kReadAhead at a time: decoding Parquet
  // is most of a union read's work, and buckets decode independently.
  std::deque<std::future<Result<LakeSource::BucketRows>>> ahead;
  size_t next = 0;
  auto read_ahead = [&] {
    while (next < targets.size() && ahead.size() < kReadAhead) {
      const uint64_t stream = targets[next++].stream_id;
      // One bucket (a DoGet's) is read on this thread.
      const auto policy = targets.size() > 1 ? std::launch::async : std::launch::deferred;
      ahead.push_back(std::async(policy, [lake, &table, stream, &scan] {
        return lake->ReadBucket(table, stream, scan);
      }));
    }
  };
  for (const auto& target : targets) {
    (void)target;
    read_ahead();
    Result<LakeSource::BucketRows> read = ahead.front().get();
    ahead.pop_front();
    MINK_ASSIGN_OR_RETURN(LakeSource::BucketRows lake_rows, std::move(read));
    if (!table.d.has_primary_key()) {
      // A log table: the lake's batches, then the log's, projected, never taken apart.
      const std::vector<int> lake_columns = PositionsIn(scan.columns, columns);
      auto send = [&](const arrow::RecordBatchPtr& batch, const std::vector<int>& projection) -> Result<bool> {
        MINK_ASSIGN_OR_RETURN(auto projected, batch->SelectColumns(projection));
        if (projected->num_rows() > remaining) {
          for (auto& row : BatchToRows(*projected, projected_types)) {
            if (static_cast<int64_t>(pending.size()) >= remaining) break;
            pending.push_back(std::move(row));
          }
          MINK_ASSIGN_OR_RETURN(bool more, flush(true));
          (void)more;
          return false;
        }
        MINK_ASSIGN_OR_RETURN(auto out, arrow::RecordBatch::Make(schema, projected->num_rows(),
                                                                 projected->columns()));
        remaining -= out->num_rows();
        return sink(out) && remaining > 0;
      };
      for (const auto& batch : lake_rows.rows) {
        MINK_ASSIGN_OR_RETURN(bool more, send(batch, lake_columns));
        if (!more) return Status::Ok();
      }
      // The log's batches come projected already.
      std::vector<int> as_they_are(columns.size());
      for (size_t i = 0; i < as_they_are.size(); ++i) as_they_are[i] = static_cast<int>(i);
      bool more = true;
      MINK_RETURN_IF_ERROR(VisitBucketBatches(storage_, table, target.stream_id,
                                              lake_rows.tiered_offset, INT64_MAX, columns,
                                              [&](const arrow::RecordBatchPtr& batch) -> Status {
                                                if (!more) return Status::Ok();
                                                MINK_ASSIGN_OR_RETURN(more, send(batch, as_they_are));
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
    // The lake's rows have the scan's columns; the log's every column. Columns the read does
    // not project stay null in the lake's.
    for (const auto& batch : lake_rows.rows) {
      for (auto& scanned : BatchToRows(*batch, scan_types)) {
        Row row(table.types.size());
        for (size_t i = 0; i < scan.columns.size(); ++i) {
          row[static_cast<size_t>(scan.columns[i])] = std::move(scanned[i]);
        }
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
    for (auto& [key, row] : rows) {
      Row projected;
      projected.reserve(columns.size());
      for (int c : columns) projected.push_back(std::move(row[static_cast<size_t>(c)]));
      pending.push_back(std::move(projected));
    }
    MINK_ASSIGN_OR_RETURN(bool more, flush(false));
    if (!more) return Status::Ok();
  }
  MINK_ASSIGN_OR_RETURN(bool more, flush(true));
  (void)more;
  return Status::Ok();
}

}  // namespace mink::table
