#pragma once
// Private types of TableStore, shared by its .cc files.

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "arrow_format/compression.h"
#include "table/kv_state.h"
#include "table/table_store.h"
#include "table/value.h"
#include "table/writer_state.h"

namespace mink::table {

// A table's descriptor, parsed once, with what the data paths need precomputed.
struct TableStore::Table {
  int64_t id = 0;
  std::string name;  // database.table
  std::string descriptor_json;
  TableDescriptor d;
  arrow::SchemaPtr schema;  // every column, in order
  std::vector<LogicalType> types;
  std::vector<int> pk, partition, bucket_key;
  std::vector<LogicalType> pk_types, partition_types, bucket_types;
  arrow::CompressionCodec codec = arrow::CompressionCodec::kLz4Frame;
};

// The runtime state of one bucket this node writes.
struct TableStore::Bucket {
  uint64_t stream_id = 0;
  std::string label;
  std::mutex mutex;  // serialises writes (primary-key buckets and idempotent writers)
  bool loaded = false;
  std::atomic<bool> writers_stale{false};  // an append failed: rebuild the writer states
  KvState kv;
  WriterStates writers;
  int64_t applied_offset = 0;   // the KV state covers the changelog below this offset
  int64_t snapshot_offset = 0;  // the newest KV snapshot covers the changelog below this
  uint64_t snapshot_seq = 0;
};

struct TableStore::Target {
  std::string label;
  uint64_t stream_id = 0;
};

// A written row with where it goes.
struct RoutedRow {
  Row row;
  std::string partition;  // "" for an unpartitioned table
  int32_t bucket = 0;
  std::string key;        // encoded primary key (primary-key tables)
  int64_t line = 0;       // 1-based position in the write, for errors
};

// The partition name of a row: the partition values rendered as text and joined with '$'.
Result<std::string> PartitionName(const Row& row, const std::vector<int>& columns,
                                  const std::vector<LogicalType>& types);

// Splits "database.table".
Status SplitTableName(const std::string& name, std::string* database, std::string* table);

}  // namespace mink::table
