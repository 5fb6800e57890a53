#pragma once
// Metadata commands of the catalog domain: databases, tables and partitions. Descriptors are
// JSON the table layer owns; metadata stores them.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "metadata/lake_commands.h"

namespace mink::metadata {

struct CreateDatabase {
  static constexpr std::string_view kKind = "database.create";
  std::string name;

  bool operator==(const CreateDatabase&) const = default;
};

struct DropDatabase {
  static constexpr std::string_view kKind = "database.drop";
  std::string name;
  bool cascade = false;  // also drop its tables

  bool operator==(const DropDatabase&) const = default;
};

// A table and, unless it is partitioned, the streams of its buckets, created open and owned by
// the creating node process at epoch 1. table_id and first_stream_id must be the next ids.
struct CreateTable {
  static constexpr std::string_view kKind = "table.create";
  std::string database;
  std::string name;
  int64_t table_id = 0;
  std::string descriptor;
  int32_t bucket_count = 1;
  bool partitioned = false;
  uint64_t first_stream_id = 0;
  int32_t owner_node = 0;
  int64_t owner_node_epoch = 0;
  std::optional<LakeAttach> lake_attach;  // a tiered table taking over an existing lake table

  bool operator==(const CreateTable&) const = default;
};

struct DropTable {
  static constexpr std::string_view kKind = "table.drop";
  std::string database;
  std::string name;

  bool operator==(const DropTable&) const = default;
};

// A partition of a partitioned table and the streams of its buckets (owned as in CreateTable).
struct CreatePartition {
  static constexpr std::string_view kKind = "partition.create";
  int64_t table_id = 0;
  std::string name;
  int64_t partition_id = 0;  // the table's next partition id
  uint64_t first_stream_id = 0;
  int32_t owner_node = 0;
  int64_t owner_node_epoch = 0;

  bool operator==(const CreatePartition&) const = default;
};

// Replaces a table's descriptor (schema evolution, options).
struct AlterTable {
  static constexpr std::string_view kKind = "table.alter";
  int64_t table_id = 0;
  std::string descriptor;

  bool operator==(const AlterTable&) const = default;
};

// A range of a table's auto-increment values for one bucket: [first, first + count). Ranges
// follow each other from 1, so no value is handed out twice, across restarts and moves.
struct AllocateAutoIncrement {
  static constexpr std::string_view kKind = "table.allocate-ids";
  int64_t table_id = 0;
  int64_t first = 0;  // the table's next value
  int64_t count = 0;

  bool operator==(const AllocateAutoIncrement&) const = default;
};

}  // namespace mink::metadata
