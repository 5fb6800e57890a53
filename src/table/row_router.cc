#include "table/row_router.h"

#include <algorithm>
#include <optional>

#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/partition_name.h"
#include "table/row_codec.h"
#include "table/schema_evolution.h"

namespace mink::table {

Result<RoutedWrite> RouteRows(const ResolvedTable& table, const WriteRequest& request,
                              const std::vector<arrow::RecordBatchPtr>& batches,
                              std::atomic<uint64_t>* sticky) {
  const TableDescriptor& d = table.d;
  const size_t n = table.types.size();
  const bool keyed = d.has_primary_key();
  const bool is_delete = request.mode == WriteMode::kDelete;
  if (is_delete && !keyed) {
    return InvalidArgumentError("deletes need a primary-key table; " + table.name +
                                " is a log table");
  }
  // Which columns the write names: a partial update lists them; otherwise the batches' columns.
  RoutedWrite routed_write;
  std::vector<bool>& targets = routed_write.targets;
  if (!request.columns.empty()) {
    if (!keyed) return InvalidArgumentError("partial updates need a primary-key table");
    targets.assign(n, false);
    for (const auto& c : request.columns) {
      int i = d.schema.Find(c);
      if (i < 0) return InvalidArgumentError("unknown column '" + c + "' in table " + table.name);
      targets[static_cast<size_t>(i)] = true;
    }
    for (int k : table.pk) targets[static_cast<size_t>(k)] = true;
  }
  // Convert and validate everything before writing anything.
  std::vector<RoutedRow>& rows = routed_write.rows;
  int64_t line = 0;
  for (const auto& batch : batches) {
    const arrow::Schema& schema = *batch->schema();
    std::vector<int> to_table;
    std::vector<LogicalType> sent_types;  // what each column was sent as (an older type too)
    std::vector<bool> present(n, false);
    for (const auto& f : schema.fields()) {
      int i = d.schema.Find(f.name());
      if (i < 0) {
        for (auto past = d.past_schemas.rbegin(); past != d.past_schemas.rend(); ++past) {
          if (past->Find(f.name()) >= 0) {
            return InvalidArgumentError("column '" + f.name() + "' was dropped from " +
                                        table.name + " (or renamed; its schema is now " +
                                        std::to_string(d.schema.schema_id) + ")");
          }
        }
        return InvalidArgumentError("unknown column '" + f.name() + "' in table " + table.name);
      }
      if (!d.auto_increment_column.empty() && f.name() == d.auto_increment_column) {
        return InvalidArgumentError("column '" + f.name() + "' is the auto-increment column of " +
                                    table.name + ": the table fills it, a write cannot name it");
      }
      const LogicalType& t = table.types[static_cast<size_t>(i)];
      std::optional<LogicalType> sent;
      if (ArrowTypeMatches(*f.type(), t)) {
        sent = t;
      } else {
        // A writer that still has an earlier schema sends a column's narrower type: widened.
        const int32_t id = d.schema.columns[static_cast<size_t>(i)].id;
        for (const auto& past : d.past_schemas) {
          const int j = past.FindId(id);
          if (j >= 0 && ArrowTypeMatches(*f.type(), past.columns[static_cast<size_t>(j)].type)) {
            sent = past.columns[static_cast<size_t>(j)].type;
          }
        }
      }
      if (!sent) {
        return InvalidArgumentError("column '" + f.name() + "' is " + t.ToString() + " (Arrow " +
                                    ToArrowType(t)->ToString() + "), not Arrow " +
                                    f.type()->ToString());
      }
      to_table.push_back(i);
      sent_types.push_back(*sent);
      present[static_cast<size_t>(i)] = true;
    }
    std::vector<ColumnReader> readers;
    for (int c = 0; c < batch->num_columns(); ++c) {
      readers.emplace_back(batch->Column(c), sent_types[static_cast<size_t>(c)]);
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      RoutedRow routed;
      routed.line = ++line;
      routed.row.assign(n, Value());
      for (size_t c = 0; c < readers.size(); ++c) {
        const auto i = static_cast<size_t>(to_table[c]);
        routed.row[i] = PromoteValue(readers[c].Get(r), sent_types[c], table.types[i]);
      }
      for (size_t i = 0; i < n; ++i) {
        const Column& col = d.schema.columns[i];
        bool key = std::find(table.pk.begin(), table.pk.end(), static_cast<int>(i)) != table.pk.end();
        bool checked = key || (!is_delete && (targets.empty() || targets[i]));
        if (col.name == d.auto_increment_column) checked = false;  // the table fills it
        if (checked && col.not_null && routed.row[i].is_null()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": column '" +
                                      col.name + "' is NOT NULL" +
                                      (present[i] ? " but the value is null" : " but missing"));
        }
      }
      if (!table.partition.empty()) {
        auto name = PartitionName(routed.row, table.partition, table.partition_types);
        if (!name.ok()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": " +
                                      name.status().message());
        }
        routed.partition = *name;
      }
      if (!table.bucket_key.empty()) {
        std::vector<Value> key_values;
        for (int k : table.bucket_key) key_values.push_back(routed.row[static_cast<size_t>(k)]);
        auto key = EncodeBucketKey(d.bucket_function, key_values, table.bucket_types);
        if (!key.ok()) {
          return InvalidArgumentError("row " + std::to_string(routed.line) + ": " +
                                      key.status().message());
        }
        routed.bucket = BucketOf(d.bucket_function, *key, d.bucket_count);
      }
      if (keyed) {
        std::vector<Value> key_values;
        for (int k : table.pk) key_values.push_back(routed.row[static_cast<size_t>(k)]);
        MINK_ASSIGN_OR_RETURN(routed.key, EncodeCompactedKey(key_values, table.pk_types));
      }
      rows.push_back(std::move(routed));
    }
  }
  if (!rows.empty() && table.bucket_key.empty()) {
    // No bucket key: the whole write goes to one bucket, a different one each time. An
    // idempotent write's bucket follows from its writer and sequence, so a retry (on this node
    // after a restart, or forwarded to an owner) reaches the bucket whose writer state knows it.
    const uint64_t turn = request.writer_id >= 0 && request.sequence >= 0
                              ? static_cast<uint64_t>(request.writer_id) + static_cast<uint64_t>(request.sequence)
                              : sticky->fetch_add(1);
    const auto b = static_cast<int32_t>(turn % static_cast<uint64_t>(d.bucket_count));
    for (auto& r : rows) r.bucket = b;
  }
  return routed_write;
}

// Rows grouped by (partition, bucket), in first-appearance order of the groups.
std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<RoutedRow*>>> GroupByBucket(
    std::vector<RoutedRow>& rows) {
  std::vector<std::pair<std::pair<std::string, int32_t>, std::vector<RoutedRow*>>> groups;
  std::map<std::pair<std::string, int32_t>, size_t> index;
  for (auto& r : rows) {
    auto key = std::make_pair(r.partition, r.bucket);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({key, {}});
    groups[it->second].second.push_back(&r);
  }
  return groups;
}

}  // namespace mink::table
