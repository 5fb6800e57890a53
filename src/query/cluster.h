#pragma once
// Cluster: what mink-query asks the nodes, over the JSON-over-Flight API of docs/flight-api.md:
// databases, tables, table descriptions (describe-table), the endpoints of a table
// (GetFlightInfo: one per bucket, with the owner's location) and one FlightClient per node
// address for the DoGets. Thread-safe: the DuckDB catalog and the scan threads share one.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrow_format/type.h"
#include "base/result.h"
#include "cli/table_description.h"
#include "flight/client/flight_client.h"

namespace mink::query {

inline constexpr char kDefaultBootstrap[] = "grpc://127.0.0.1:9123";
inline constexpr char kBootstrapEnv[] = "MINK_BOOTSTRAP";

// A table as the query engine sees it.
struct TableMeta {
  std::string database;
  std::string table;
  cli::TableDescription description;
  arrow::SchemaPtr schema;  // the Arrow schema of a full row, columns in table order

  std::string full_name() const { return database + "." + table; }
};

// One bucket of a table to read with DoGet.
struct Endpoint {
  std::optional<std::string> partition;  // partition name (values joined by '$'), if partitioned
  int32_t bucket = 0;
  std::string location;                  // grpc://host:port; empty: the bootstrap node
  std::optional<int64_t> end;            // read the log below this offset only (see ColumnStats)
};

// The range of an integer-valued column over the rows of one bucket (the node's column-stats).
struct ColumnRange {
  int64_t nulls = 0;
  std::optional<int64_t> min;  // both absent when every value is null
  std::optional<int64_t> max;
};

// Column ranges of one bucket of a log table over its log below `end`.
struct BucketStats {
  std::optional<std::string> partition;
  int32_t bucket = 0;
  int64_t end = 0;
  int64_t rows = 0;
  std::map<std::string, ColumnRange> columns;  // by column name
};

class Cluster {
 public:
  // Checks the address; connects lazily (the first call reports an unreachable node).
  static Result<std::shared_ptr<Cluster>> Connect(const std::string& bootstrap);

  const std::string& bootstrap() const { return bootstrap_; }

  Result<std::vector<std::string>> ListDatabases();
  // Table names (without the database), sorted.
  Result<std::vector<std::string>> ListTables(const std::string& database);
  // Null when the table does not exist.
  Result<std::shared_ptr<const TableMeta>> DescribeTable(const std::string& database,
                                                         const std::string& table);
  // Every bucket of the table (partition by partition), with the node that owns it.
  Result<std::vector<Endpoint>> Endpoints(const std::string& database, const std::string& table);
  // Per bucket of a log table: min/max and null count of its integer-valued columns.
  Result<std::vector<BucketStats>> ColumnStats(const std::string& database,
                                               const std::string& table);
  // The client for a node ("" = the bootstrap node).
  Result<std::shared_ptr<flight::FlightClient>> ClientFor(const std::string& location);

 private:
  explicit Cluster(std::string bootstrap) : bootstrap_(std::move(bootstrap)) {}
  Result<std::string> Action(const std::string& type, const std::string& body);

  std::string bootstrap_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<flight::FlightClient>> clients_;  // by host:port
};

// The JSON DoGet ticket of one endpoint.
struct ScanTicket {
  std::string table;       // database.table
  bool snapshot = false;   // primary-key tables read their KV snapshot
  std::vector<std::string> columns;
  std::optional<std::string> partition;
  int32_t bucket = 0;
  std::optional<int64_t> end;  // log mode: stop before this offset
  bool compressed = false;     // log mode: batches may come compressed as stored
};
std::string EncodeTicket(const ScanTicket& ticket);

}  // namespace mink::query
