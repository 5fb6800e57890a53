#pragma once
// TableDescriptor: everything about a table but its data — columns, primary key, partitioning,
// bucketing, merge engine and options — with the validation rules of Fluss (docs/tables.md,
// Table model and Merge engines). Stored as JSON in the metadata catalog.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "table/bucketing.h"
#include "table/types.h"

namespace mink::table {

enum class MergeEngineKind { kDefault, kFirstRow, kVersioned, kAggregation };
enum class ChangelogImage { kFull, kWal };
enum class DeleteBehavior { kAllow, kIgnore, kDisable };

struct TableDescriptor {
  TableSchema schema;  // the current schema (schema_id counts from 0, one up per change)
  // Every earlier schema, oldest first: data written under one is read under `schema`
  // (schema_evolution.h).
  std::vector<TableSchema> past_schemas;
  int32_t next_column_id = 0;  // the id of the next column added
  std::vector<std::string> primary_key;
  std::vector<std::string> partition_keys;
  std::vector<std::string> bucket_keys;  // resolved: a PK table's default is PK minus partitions
  int32_t bucket_count = 1;
  BucketFunction bucket_function = BucketFunction::kNative;
  MergeEngineKind merge_engine = MergeEngineKind::kDefault;
  std::string version_column;                      // versioned engine
  std::map<std::string, std::string> aggregations;  // aggregation engine: column -> function
  std::map<std::string, std::string> listagg_delimiters;  // column -> delimiter (default ",")
  // The column the table fills with a new value for each new key ("" = none), and how many
  // values a bucket takes from the metadata log at a time.
  std::string auto_increment_column;
  int64_t auto_increment_cache_size = 100'000;
  // Tiering into the lake (table.datalake.*): whether, how far the lake may lag the log, and
  // whether its small files are compacted.
  bool lake_enabled = false;
  int64_t lake_freshness_ms = 180'000;
  bool lake_auto_compaction = false;
  ChangelogImage changelog_image = ChangelogImage::kFull;
  DeleteBehavior delete_behavior = DeleteBehavior::kAllow;
  // The log's time to live (0 = forever) when the table sets `table.log.ttl`; a table that sets
  // none follows its node's default (`mink serve --retention`, LogTtlMs).
  int64_t log_ttl_ms = 7LL * 24 * 3600 * 1000;
  // Idempotent writers number records, not batches (Kafka producers): a batch of n records
  // with first sequence s covers s..s+n-1.
  bool sequence_per_record = false;
  std::map<std::string, std::string> options;  // as given, for describe

  bool has_primary_key() const { return !primary_key.empty(); }
  // The current or an earlier schema by id; null if the table never had it.
  const TableSchema* SchemaById(int32_t schema_id) const;
  bool sets_log_ttl() const { return options.count("table.log.ttl") > 0; }
  // The TTL that applies: the table's own, else `node_default_ms`.
  int64_t LogTtlMs(int64_t node_default_ms) const {
    return sets_log_ttl() ? log_ttl_ms : node_default_ms;
  }
  bool partitioned() const { return !partition_keys.empty(); }

  // Column indexes of the primary key, partition keys and bucket keys.
  std::vector<int> PrimaryKeyIndexes() const;
  std::vector<int> PartitionKeyIndexes() const;
  std::vector<int> BucketKeyIndexes() const;

  std::string ToJson() const;
  static Result<TableDescriptor> FromJson(const std::string& json);
};

struct TableSpec {
  std::vector<std::string> columns;  // "name TYPE [NOT NULL]"
  std::vector<std::string> primary_key;
  std::vector<std::string> partition_by;
  std::vector<std::string> bucket_key;
  int32_t bucket_count = 0;  // 0 = default (1)
  // table.merge-engine, table.merge-engine.versioned.ver-column, fields.<col>.agg,
  // fields.<col>.listagg.delimiter,
  // table.changelog.image, table.delete.behavior, table.log.ttl, bucket.function,
  // auto-increment.fields, table.auto-increment.cache-size, table.datalake.enabled,
  // table.datalake.format, table.datalake.freshness, table.datalake.auto-compaction
  std::map<std::string, std::string> options;
};

// Parses and validates a create-table request; errors name the offending column or option.
Result<TableDescriptor> MakeDescriptor(const TableSpec& spec);

// Names of the metadata columns reads can add; not allowed as column names.
bool IsReservedColumnName(const std::string& name);

}  // namespace mink::table
