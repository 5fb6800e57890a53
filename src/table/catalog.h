#pragma once
// Catalog: databases, tables and partitions as the metadata log holds them. It runs the DDL
// (one command each), resolves a table name to its parsed descriptor (cached by table id and
// descriptor text), creates a partition on the first write of its values, and says which bucket
// streams a table, partition or bucket is made of. Which node a new bucket goes to is the
// assignment's to say (bucket_ownership.h).
//
// Thread-safe.

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow_format/compression.h"
#include "arrow_format/record_batch.h"
#include "metadata/lake_commands.h"
#include "metadata/metadata_log.h"
#include "table/bucket_ownership.h"
#include "table/descriptor.h"
#include "table/schema_change.h"

namespace mink::table {

struct TableInfo {
  std::string name;  // database.table
  int64_t table_id = 0;
  TableDescriptor descriptor;
  std::vector<std::pair<std::string, int64_t>> partitions;  // name, id (in id order)
};

// A table's descriptor, parsed once, with what the data paths need precomputed.
struct ResolvedTable {
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

// One bucket of a table: its label ("b0", or "p1/b0" in partition 1) and its stream.
struct BucketRef {
  std::string label;
  uint64_t stream_id = 0;
};

// One bucket of a table with where it is: its partition (name and id; "" and 0 when the table
// is not partitioned) and number.
struct TableBucket {
  std::string partition;
  int64_t partition_id = 0;
  int32_t bucket = 0;
  std::string label;
  uint64_t stream_id = 0;
};

// "b<bucket>", or "p<partition id>/b<bucket>" in a partitioned table.
std::string BucketLabel(int64_t partition_id, int32_t bucket);

// Splits "database.table".
Status SplitTableName(const std::string& name, std::string* database, std::string* table);

// The table of descriptor `d` (stored as `descriptor_json`), as reads and writes use it.
std::shared_ptr<const ResolvedTable> Resolve(int64_t id, const std::string& name, std::string descriptor_json,
                                             TableDescriptor d);

class Catalog {
 public:
  Catalog(metadata::MetadataLog* meta, BucketOwnership* ownership)
      : meta_(meta), ownership_(ownership) {}

  Status CreateDatabase(const std::string& name);
  Status DropDatabase(const std::string& name, bool cascade);
  std::vector<std::string> ListDatabases() const;
  // `attach`: the existing lake table it takes over (LakeSource::PrepareAttach), carried by the
  // create command.
  Result<TableInfo> CreateTable(const std::string& name, const TableSpec& spec,
                                const std::optional<metadata::LakeAttach>& attach = std::nullopt);
  // Drops the table and stops writing its buckets; the streams they had.
  Result<std::vector<uint64_t>> DropTable(const std::string& name);
  // Changes a table (schema_change.h); the change is checked against the table as it is when
  // the command is appended, so concurrent alters each see the other's result.
  Result<TableInfo> AlterTable(const std::string& name, const TableAlteration& change);
  // Tables of one database ("" = all), as database.table.
  Result<std::vector<std::string>> ListTables(const std::string& database) const;
  Result<TableInfo> DescribeTable(const std::string& name) const;
  Result<std::shared_ptr<const ResolvedTable>> Find(const std::string& name) const;
  // An idempotent writer id, allocated through the log.
  Result<int64_t> AllocateWriterId();

  // The stream of bucket `bucket` of `partition` ("" in an unpartitioned table); a partition is
  // created on its first write, its buckets owned as the assignment says. `label` gets the
  // bucket's label.
  Result<uint64_t> EnsurePartition(const ResolvedTable& table, const std::string& partition,
                                   int32_t bucket, std::string* label);
  // The stream of bucket `bucket` of an unpartitioned table.
  Result<uint64_t> BucketStream(const std::string& name, int32_t bucket) const;
  // Every bucket of the table with its partition and number, in partition id then bucket order.
  std::vector<TableBucket> AllBuckets(const ResolvedTable& table) const;
  // The buckets of the table, or of one partition and/or bucket of it, in partition id then
  // bucket order. Errors name a partition or bucket the table does not have.
  Result<std::vector<BucketRef>> Buckets(const ResolvedTable& table,
                                         const std::optional<std::string>& partition,
                                         const std::optional<int32_t>& bucket) const;
  // Every bucket stream of every table, with the id of its table.
  std::map<uint64_t, int64_t> StreamTables() const;
  // The name (database.table) of a table by id, "" when there is none.
  std::string TableName(int64_t table_id) const;

 private:
  metadata::MetadataLog* const meta_;
  BucketOwnership* const ownership_;
  mutable std::mutex mutex_;
  mutable std::map<int64_t, std::shared_ptr<const ResolvedTable>> tables_;  // by table id
};

}  // namespace mink::table
