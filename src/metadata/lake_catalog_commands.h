#pragma once
// Metadata commands of the lake catalog's own namespaces and tables: what Iceberg engines create
// and commit through the Iceberg REST API that a node serves (docs/iceberg-rest.md). Mink's
// databases are namespaces too, and its tiered tables are tables of the catalog (their lake is
// the lake domain's, lake_commands.h); these commands keep everything else. A table of the
// catalog is a pointer to its current metadata file, moved by compare-and-set, as Iceberg's JDBC
// catalog keeps one: the metadata file itself lives in the warehouse.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mink::metadata {

// How long the outcome of a request with an Idempotency-Key is kept for its retries.
inline constexpr int64_t kIdempotencyLifetimeMs = 30 * 60 * 1000;

// The outcome a retry with the same Idempotency-Key is answered with; key "" for none.
struct IdempotentOutcome {
  std::string key;
  int32_t status = 0;
  std::string body;

  bool operator==(const IdempotentOutcome&) const = default;
};

using NamespaceName = std::vector<std::string>;  // its levels, outermost first

struct CreateLakeNamespace {
  static constexpr std::string_view kKind = "lake.namespace.create";
  NamespaceName name;
  std::map<std::string, std::string> properties;
  IdempotentOutcome outcome;

  bool operator==(const CreateLakeNamespace&) const = default;
};

struct DropLakeNamespace {
  static constexpr std::string_view kKind = "lake.namespace.drop";
  NamespaceName name;
  IdempotentOutcome outcome;

  bool operator==(const DropLakeNamespace&) const = default;
};

struct UpdateLakeNamespace {
  static constexpr std::string_view kKind = "lake.namespace.update";
  NamespaceName name;
  std::vector<std::string> removals;
  std::map<std::string, std::string> updates;
  IdempotentOutcome outcome;

  bool operator==(const UpdateLakeNamespace&) const = default;
};

// One table's move in a catalog commit.
struct LakeTableMove {
  NamespaceName space;
  std::string name;
  std::string expected;  // its current metadata location; "" for a table the commit creates
  std::string location;  // its new metadata location; "" drops it

  bool operator==(const LakeTableMove&) const = default;
};

// Creates, commits or drops tables of the catalog, all or none (a REST multi-table transaction
// is one command).
struct CommitLakeCatalog {
  static constexpr std::string_view kKind = "lake.catalog.commit";
  std::vector<LakeTableMove> moves;
  IdempotentOutcome outcome;

  bool operator==(const CommitLakeCatalog&) const = default;
};

struct RenameLakeTable {
  static constexpr std::string_view kKind = "lake.table.rename";
  NamespaceName from_space;
  std::string from_name;
  NamespaceName to_space;
  std::string to_name;
  IdempotentOutcome outcome;

  bool operator==(const RenameLakeTable&) const = default;
};

}  // namespace mink::metadata
