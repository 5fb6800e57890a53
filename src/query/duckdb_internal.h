#pragma once
// What the DuckDB facade TUs (engine.cc, catalog.cc, scan.cc, pushdown.cc) share. Includes
// duckdb.hpp, so it must never be included outside src/query and never from a public header of
// ours: a TU that includes it costs ~6 s and ~0.7 GB to compile.
//
// DuckDB reports errors by throwing; everything below may throw duckdb::Exception (and only
// that). The public entry points in engine.cc catch at the boundary and return Status.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

// Include this header before any of ours: DuckDB's duckdb/common/arrow/arrow.hpp declares the Arrow
// C data and stream interface structs only if ARROW_FLAG_DICTIONARY_ORDERED is not yet defined,
// which our arrow_format/c_data_interface.h defines (without the stream struct DuckDB needs).
#ifdef ARROW_C_DATA_INTERFACE
#ifndef ARROW_C_STREAM_INTERFACE
#error "include query/duckdb_internal.h before arrow_format/c_bridge.h"
#endif
#endif
#include "duckdb.hpp"
#include "duckdb/function/table/arrow.hpp"
#include "duckdb/planner/table_filter.hpp"
#include "arrow_format/record_batch.h"
#include "client/cluster.h"
#include "query/scan_report.h"

namespace mink::query::internal {

// The `mink` catalog: ATTACH '' AS mink (TYPE mink).
inline constexpr char kStorageName[] = "mink";
// `SET mink_column_statistics = false` plans scans without the nodes' column statistics.
inline constexpr char kColumnStatisticsSetting[] = "mink_column_statistics";
// `SET mink_compressed_scan = false` asks the nodes for uncompressed batches.
inline constexpr char kCompressedScanSetting[] = "mink_compressed_scan";
void RegisterMinkStorage(duckdb::DBConfig& config, std::shared_ptr<client::Cluster> cluster,
                         std::shared_ptr<ScanRecorder> recorder);
// The session of `context` reads the mink catalog through `as` rather than the engine's cluster
// (the catalog's transactions pick it up: lookups, lists, scans and ALTER go as that caller).
void ReadAs(duckdb::ClientContext& context, std::shared_ptr<client::Cluster> as);

// A pruning predicate over partition values: the filter rewritten to reference the partition
// columns by their position in the partition key.
struct PartitionPredicate {
  duckdb::unique_ptr<duckdb::Expression> expression;
  std::string text;  // for EXPLAIN
};

// Allowed values of one bucket-key or primary-key column (from `col = c` or `col IN (...)`):
// bucket-key columns prune buckets, and values for every primary-key column turn a snapshot scan
// into a lookup of those keys.
struct KeyColumnValues {
  int column = 0;  // table column
  std::vector<duckdb::Value> values;
};

// At most this many keys (the product of the allowed values' counts) are computed, for bucket
// pruning and for a lookup.
inline constexpr size_t kMaxKeyCombinations = 4096;

// What the node's column statistics say of one table column over the rows the scan reads (every
// endpoint's log below its `end`: the scan reads no further, so DuckDB may rely on them).
struct ColumnBounds {
  bool known = false;
  std::optional<int64_t> min;  // absent: no non-null value
  std::optional<int64_t> max;
  bool has_null = false;
};

// The bind data of a scan of one mink table.
struct ScanBindData : public duckdb::TableFunctionData {
  std::shared_ptr<client::Cluster> cluster;
  std::shared_ptr<ScanRecorder> recorder;
  std::shared_ptr<const client::TableMeta> meta;
  std::shared_ptr<duckdb::ArrowTableSchema> arrow_table;  // Arrow -> DuckDB conversion per column
  std::vector<duckdb::LogicalType> types;                 // per table column
  std::vector<client::Endpoint> endpoints;                // every bucket, as of bind time
  std::vector<ColumnBounds> bounds;  // per table column (log tables with column statistics)
  std::optional<int64_t> stats_rows;  // rows below the endpoints' ends, when known
  bool compressed = true;  // log reads take batches compressed as stored
  // Pushdown found by the optimizer (pushdown.cc); applied to the endpoints at init.
  std::vector<std::shared_ptr<PartitionPredicate>> partition_predicates;
  std::vector<KeyColumnValues> key_values;
  std::string pruning;  // for EXPLAIN: what the pushdown selects, as of bind time
  std::string lookup;   // for EXPLAIN: the keys a lookup reads instead, when it does

  bool snapshot() const { return meta->description.has_primary_key(); }
  bool tiered() const { return !meta->description.lake_format.empty(); }
  duckdb::unique_ptr<duckdb::FunctionData> Copy() const override;
  bool Equals(const duckdb::FunctionData& other) const override;
};

// The table function behind every mink table (catalog entries hand it out with bind data).
duckdb::TableFunction MakeScanFunction();
duckdb::unique_ptr<ScanBindData> MakeScanBindData(duckdb::ClientContext& context,
                                               std::shared_ptr<client::Cluster> cluster,
                                               std::shared_ptr<ScanRecorder> recorder,
                                               std::shared_ptr<const client::TableMeta> meta,
                                               std::shared_ptr<duckdb::ArrowTableSchema> arrow_table,
                                               std::vector<duckdb::LogicalType> types);

// The Arrow -> DuckDB column mapping of a table (DuckDB's own Arrow type conversion).
std::shared_ptr<duckdb::ArrowTableSchema> MakeArrowTableSchema(duckdb::DBConfig& config,
                                                               const arrow::Schema& schema);

// pushdown.cc: records partition and bucket pruning from the filters the optimizer pushes down
// (the filters stay in place: DuckDB still pushes them as table filters, which the scan applies).
void PushdownComplexFilter(duckdb::ClientContext& context, duckdb::LogicalGet& get,
                           duckdb::FunctionData* bind_data,
                           duckdb::vector<duckdb::unique_ptr<duckdb::Expression>>& filters);
// lake_filters.cc: the table filters of a union read that the node can apply to the lake's
// Parquet reads (only ever fewer than DuckDB pushed: the scan still applies them all).
std::vector<table::LakeFilter> LakeFilters(const ScanBindData& bind, const duckdb::TableFilterSet& filters,
                                           const duckdb::vector<duckdb::column_t>& column_ids);
// Which endpoints a scan reads, given the pruning of the bind data.
std::vector<bool> SelectEndpoints(duckdb::ClientContext& context, const ScanBindData& bind,
                                  const std::vector<client::Endpoint>& endpoints,
                                  std::string* explanation);
// The keys a scan of a primary-key table looks up instead of reading its buckets: every
// combination of the values the filters allow for each primary-key column, as a batch of the
// key columns. Null when some key column has no values (or a type lookups cannot take), or when
// there would be more than kMaxKeyCombinations keys.
arrow::RecordBatchPtr LookupKeys(const ScanBindData& bind, std::string* explanation);

// Throws for a failed call to the cluster: duckdb::PermissionException when the node refused the
// caller (the session's error is then PermissionDenied), else duckdb::IOException.
template <typename T>
T ValueOrThrow(Result<T> result, const std::string& what) {
  if (!result.ok()) {
    if (result.status().code() == StatusCode::kPermissionDenied) {
      throw duckdb::PermissionException("mink: %s: %s", what, result.status().message());
    }
    throw duckdb::IOException("mink: %s: %s", what, result.status().message());
  }
  return std::move(*result);
}

}  // namespace mink::query::internal
