#include "table/key_lookup.h"

#include <algorithm>
#include <future>
#include <map>
#include <unordered_map>

#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/partition_name.h"
#include "table/row_codec.h"

namespace mink::table {
namespace {

std::string Joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return "(" + out + ")";
}

// Schema indexes of the answer's columns.
Result<std::vector<int>> AnswerColumns(const ResolvedTable& table,
                                       const std::vector<std::string>& columns) {
  std::vector<int> out;
  if (columns.empty()) {
    for (int i = 0; i < static_cast<int>(table.types.size()); ++i) out.push_back(i);
    return out;
  }
  for (const auto& c : columns) {
    int i = table.d.schema.Find(c);
    if (i < 0) return InvalidArgumentError("unknown column '" + c + "' in table " + table.name);
    out.push_back(i);
  }
  return out;
}

// Values of `columns` of `row`.
std::vector<Value> ValuesOf(const Row& row, const std::vector<int>& columns) {
  std::vector<Value> values;
  values.reserve(columns.size());
  for (int c : columns) values.push_back(row[static_cast<size_t>(c)]);
  return values;
}

// What a row is matched on: its encoded primary key (the KV state's key), or for a prefix
// lookup its encoded bucket key.
Result<std::string> MatchKey(const ResolvedTable& table, const Row& row, bool prefix) {
  return prefix ? EncodeCompactedKey(ValuesOf(row, table.bucket_key), table.bucket_types)
                : EncodeCompactedKey(ValuesOf(row, table.pk), table.pk_types);
}

// Whether the bucket key is the primary key's first columns, in order: then a prefix lookup's
// encoded bucket key is a byte prefix of the stored keys it matches.
bool BucketKeyLeadsPrimaryKey(const ResolvedTable& table) {
  if (table.bucket_key.size() > table.pk.size()) return false;
  return std::equal(table.bucket_key.begin(), table.bucket_key.end(), table.pk.begin());
}

// One key of a lookup: where its rows are and what they match on.
struct ParsedKey {
  Row key_row;  // the key batch's values, in its column order
  std::string partition;
  int32_t bucket = 0;
  std::string match;
};

}  // namespace

Result<std::vector<std::string>> KeyLookup::KeyColumns(const ResolvedTable& table, bool prefix) {
  if (!table.d.has_primary_key()) {
    return InvalidArgumentError("lookups need a primary-key table; " + table.name +
                                " is a log table");
  }
  std::vector<bool> wanted(table.types.size(), false);
  if (prefix) {
    for (int i : table.bucket_key) wanted[static_cast<size_t>(i)] = true;
    for (int i : table.partition) wanted[static_cast<size_t>(i)] = true;
  } else {
    for (int i : table.pk) wanted[static_cast<size_t>(i)] = true;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < wanted.size(); ++i) {
    if (wanted[i]) names.push_back(table.d.schema.columns[i].name);
  }
  return names;
}

Result<arrow::SchemaPtr> KeyLookup::AnswerSchema(const LookupRequest& request) const {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(request.table));
  MINK_RETURN_IF_ERROR(KeyColumns(*table, request.prefix).status());
  MINK_ASSIGN_OR_RETURN(auto columns, AnswerColumns(*table, request.columns));
  std::vector<arrow::Field> fields;
  for (int c : columns) fields.push_back(table->schema->field(c));
  return std::make_shared<const arrow::Schema>(std::move(fields));
}

Result<arrow::RecordBatchPtr> KeyLookup::Lookup(const LookupRequest& request,
                                                const arrow::RecordBatch& keys) {
  MINK_ASSIGN_OR_RETURN(auto table, catalog_->Find(request.table));
  MINK_ASSIGN_OR_RETURN(std::vector<std::string> key_names, KeyColumns(*table, request.prefix));
  MINK_ASSIGN_OR_RETURN(std::vector<int> answer_columns, AnswerColumns(*table, request.columns));
  const std::string what = std::string(request.prefix ? "a prefix lookup" : "a lookup") + " of " +
                           table->name;

  // The key batch's columns: each a key column of the right type, every key column present.
  const arrow::Schema& schema = *keys.schema();
  std::vector<int> to_table;
  std::vector<LogicalType> key_types;
  for (const auto& f : schema.fields()) {
    const int i = table->d.schema.Find(f.name());
    if (i < 0 || std::find(key_names.begin(), key_names.end(), f.name()) == key_names.end()) {
      return InvalidArgumentError(what + " takes the key columns " + Joined(key_names) + "; '" +
                                  f.name() + "' is not one of them");
    }
    const LogicalType& t = table->types[static_cast<size_t>(i)];
    if (!ArrowTypeMatches(*f.type(), t)) {
      return InvalidArgumentError("key column '" + f.name() + "' is " + t.ToString() +
                                  " (Arrow " + ToArrowType(t)->ToString() + "), not Arrow " +
                                  f.type()->ToString());
    }
    to_table.push_back(i);
    key_types.push_back(t);
  }
  for (const auto& name : key_names) {
    if (schema.GetFieldIndex(name) < 0) {
      return InvalidArgumentError(what + " needs the key columns " + Joined(key_names) +
                                  "; '" + name + "' is missing");
    }
  }

  std::vector<ColumnReader> readers;
  for (int c = 0; c < keys.num_columns(); ++c) {
    readers.emplace_back(keys.Column(c), key_types[static_cast<size_t>(c)]);
  }
  std::vector<ParsedKey> parsed(static_cast<size_t>(keys.num_rows()));
  std::map<std::pair<std::string, int32_t>, std::vector<size_t>> groups;
  for (int64_t r = 0; r < keys.num_rows(); ++r) {
    ParsedKey& key = parsed[static_cast<size_t>(r)];
    Row row(table->types.size(), Value());
    for (size_t c = 0; c < readers.size(); ++c) {
      Value v = readers[c].Get(r);
      if (v.is_null()) {
        return InvalidArgumentError("key " + std::to_string(r + 1) + " of " + what + ": column '" +
                                    schema.field(static_cast<int>(c)).name() + "' is null");
      }
      row[static_cast<size_t>(to_table[c])] = v;
      key.key_row.push_back(std::move(v));
    }
    if (table->d.partitioned()) {
      auto name = PartitionName(row, table->partition, table->partition_types);
      if (!name.ok()) {
        return InvalidArgumentError("key " + std::to_string(r + 1) + " of " + what + ": " +
                                    name.status().message());
      }
      key.partition = *name;
    }
    MINK_ASSIGN_OR_RETURN(std::string bucket_key,
                          EncodeBucketKey(table->d.bucket_function,
                                          ValuesOf(row, table->bucket_key), table->bucket_types));
    key.bucket = BucketOf(table->d.bucket_function, bucket_key, table->d.bucket_count);
    MINK_ASSIGN_OR_RETURN(key.match, MatchKey(*table, row, request.prefix));
    groups[{key.partition, key.bucket}].push_back(static_cast<size_t>(r));
  }

  // Each key's rows, with the KV key they were stored under (the order of a prefix's rows).
  std::vector<std::vector<std::pair<std::string, Row>>> found(parsed.size());
  const int32_t self = storage_->node().node_id;
  LookupRequest forwarded{request.table, request.prefix, {}, true};
  std::vector<std::pair<std::vector<size_t>, std::future<Result<arrow::RecordBatchPtr>>>> sent;
  for (const auto& [where, indexes] : groups) {
    auto refs = catalog_->Buckets(
        *table, table->d.partitioned() ? std::optional<std::string>(where.first) : std::nullopt,
        where.second);
    if (!refs.ok() && refs.status().code() == StatusCode::kNotFound) continue;  // no partition
    MINK_RETURN_IF_ERROR(refs.status());
    if (refs->empty()) continue;
    const BucketRef& ref = refs->front();
    if (!storage_->Writes(ref.stream_id) && forwarder_ != nullptr) {
      const int32_t owner = owner_(ref.stream_id);
      if (owner == 0 || owner == self || request.forwarded) {
        return UnavailableError("bucket " + ref.label + " of " + table->name + " is " +
                                (owner == 0 || owner == self
                                     ? std::string("moving between nodes")
                                     : "served by node " + std::to_string(owner)) +
                                ", not by node " + std::to_string(self) + "; retry the lookup");
      }
      std::vector<const Row*> rows;
      for (size_t i : indexes) rows.push_back(&parsed[i].key_row);
      MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(rows, keys.schema(), key_types));
      sent.emplace_back(indexes, std::async(std::launch::async, [this, owner, &forwarded, batch] {
                          return forwarder_->Lookup(owner, forwarded, batch);
                        }));
      continue;
    }
    // Served here (or, on a node alone, rebuilt here as a snapshot read does).
    BucketState* bucket = buckets_->Get(ref.stream_id, ref.label);
    std::lock_guard<std::mutex> lock(bucket->mutex);
    if (!storage_->Writes(ref.stream_id)) bucket->writers_stale = true;
    MINK_RETURN_IF_ERROR(buckets_->Load(*table, bucket));
    if (!request.prefix) {
      // One multi-get for the bucket's keys.
      std::vector<std::string> keys;
      for (size_t i : indexes) keys.push_back(parsed[i].match);
      MINK_ASSIGN_OR_RETURN(auto values, bucket->kv->MultiGet(keys));
      for (size_t j = 0; j < indexes.size(); ++j) {
        if (!values[j]) continue;
        MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(*values[j], table->types));
        found[indexes[j]].emplace_back(parsed[indexes[j]].match, std::move(row));
      }
      continue;
    }
    std::unordered_map<std::string, std::vector<size_t>> wanted;
    for (size_t i : indexes) wanted[parsed[i].match].push_back(i);
    if (BucketKeyLeadsPrimaryKey(*table)) {
      // The bucket key's encoding begins every key it is a prefix of (the compacted encoding
      // concatenates the fields): a seek to it, then on while the keys start with it.
      for (const auto& [match, those] : wanted) {
        auto cursor = bucket->kv->Scan(match);
        for (; cursor->Valid() && cursor->key().starts_with(match); cursor->Next()) {
          MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(cursor->value(), table->types));
          MINK_ASSIGN_OR_RETURN(std::string matched, MatchKey(*table, row, true));
          if (matched != match) continue;
          for (size_t i : those) found[i].emplace_back(std::string(cursor->key()), row);
        }
        MINK_RETURN_IF_ERROR(cursor->status());
      }
      continue;
    }
    // Otherwise one pass over the bucket for all of its keys.
    auto cursor = bucket->kv->Scan();
    for (; cursor->Valid(); cursor->Next()) {
      MINK_ASSIGN_OR_RETURN(Row row, DecodeRow(cursor->value(), table->types));
      MINK_ASSIGN_OR_RETURN(std::string match, MatchKey(*table, row, true));
      auto it = wanted.find(match);
      if (it == wanted.end()) continue;
      for (size_t i : it->second) found[i].emplace_back(std::string(cursor->key()), row);
    }
    MINK_RETURN_IF_ERROR(cursor->status());
  }
  Status failure;
  for (auto& [indexes, answer] : sent) {
    Result<arrow::RecordBatchPtr> rows = answer.get();
    if (!rows.ok()) {
      if (failure.ok()) failure = rows.status();
      continue;
    }
    std::unordered_map<std::string, std::vector<size_t>> wanted;
    for (size_t i : indexes) wanted[parsed[i].match].push_back(i);
    for (Row& row : BatchToRows(**rows, table->types)) {
      MINK_ASSIGN_OR_RETURN(std::string match, MatchKey(*table, row, request.prefix));
      MINK_ASSIGN_OR_RETURN(std::string kv_key, MatchKey(*table, row, false));
      auto it = wanted.find(match);
      if (it == wanted.end()) continue;
      for (size_t i : it->second) found[i].emplace_back(kv_key, row);
    }
  }
  MINK_RETURN_IF_ERROR(failure);

  std::vector<const Row*> rows;
  for (auto& matches : found) {
    std::sort(matches.begin(), matches.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [kv_key, row] : matches) rows.push_back(&row);
  }
  MINK_ASSIGN_OR_RETURN(auto batch, RowsToBatch(rows, table->schema, table->types));
  if (answer_columns.size() == table->types.size()) return batch;
  return batch->SelectColumns(answer_columns);
}

}  // namespace mink::table
