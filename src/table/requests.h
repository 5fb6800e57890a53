#pragma once
// What the table layer's writes and reads are asked and answer (TableStore, and the writers and
// reader behind it).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mink::table {

enum class WriteMode { kUpsert, kDelete };

struct WriteRequest {
  std::string table;  // "database.table"
  WriteMode mode = WriteMode::kUpsert;
  std::vector<std::string> columns;  // a partial update when not empty
  int64_t writer_id = -1;            // idempotence, with sequence
  int32_t sequence = -1;
  // Sent on by the node that received it (a cluster): rows of buckets this node does not serve
  // are refused as Unavailable, not sent on again.
  bool forwarded = false;
};

struct BucketWrite {
  std::string bucket;  // "b0" or "p1/b0"
  int64_t base_offset = 0;
  int64_t end_offset = 0;
};

struct WriteResult {
  int64_t rows = 0;
  std::vector<BucketWrite> buckets;
};

enum class ReadMode { kLog, kSnapshot, kUnion };

// A filter a reader pushes into the lake's share of a union read (ReadRequest::lake_filters):
// `column op value`, `column IN (values)`, `column IS [NOT] NULL`. Values are text in SQL's
// literal form for the column's type ('42', '11.50', '2026-12-06 10:00:00', 'abc'); NULL
// never passes a comparison.
struct LakeFilter {
  std::string column;
  std::string op;  // = != < <= > >= in is_null is_not_null
  std::vector<std::string> values;
};

struct ReadRequest {
  std::string table;
  ReadMode mode = ReadMode::kLog;
  std::string from = "earliest";  // earliest | latest | <offset>
  int64_t limit = -1;             // rows; -1 = no limit
  bool follow = false;
  std::optional<std::string> partition;
  std::optional<int32_t> bucket;
  std::vector<std::string> columns;  // projection; empty = all
  bool meta = false;                 // __bucket, __offset, __change
  bool timestamp = false;            // __timestamp
  std::optional<int64_t> end;        // log reads (not follow) stop before this offset
  // Union reads: filters the lake's Parquet reads apply. A hint, not a filter of the answer:
  // rows from the log after the tiered offset are not filtered, so the reader filters again.
  std::vector<LakeFilter> lake_filters;
};

// A lookup of a primary-key table's current rows by key (TableStore::Lookup).
struct LookupRequest {
  std::string table;
  // false: the keys are whole primary keys, each answered by its row or nothing. true: the
  // keys are bucket-key values (with the partition keys of a partitioned table), each answered
  // by every row that has them (Fluss's prefix lookup).
  bool prefix = false;
  std::vector<std::string> columns;  // the answer's columns; empty = all
  // Sent on by the node that received it: keys of buckets this node does not serve are
  // refused as Unavailable, not sent on again.
  bool forwarded = false;
};

// A tiered table's current lake snapshot (mink table lake-snapshot).
struct LakeSnapshotInfo {
  int64_t snapshot_id = 0;  // 0: nothing tiered yet
  int64_t timestamp_ms = 0;
  int64_t sequence_number = 0;
  std::string metadata_location;
  std::vector<std::pair<std::string, int64_t>> buckets;  // bucket label -> tiered below
};

struct BucketOffsets {
  std::string bucket;
  int64_t start = 0;
  int64_t end = 0;
  std::optional<int64_t> at;
  int32_t owner = 0;  // the node that writes the bucket now; 0 while it moves between nodes
};

}  // namespace mink::table
