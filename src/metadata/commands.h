#pragma once
// The commands of the metadata log, as typed values. Each has a `kind` string and a JSON body
// (commands.cc converts both ways); the state machine (state.h) validates and applies them.
// Commands are deterministic: everything that validation or application needs is in the command
// or in the state, never in the clock or the environment of the node applying it.

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "base/result.h"

namespace mink::metadata {

// A node process starts: node_epoch must be the node's previous epoch + 1, which fences every
// older process of the same node id.
struct RegisterNode {
  int32_t node_id = 0;
  int64_t node_epoch = 0;

  bool operator==(const RegisterNode&) const = default;
};

// A new stream; stream_id must equal the state's next_stream_id.
struct CreateStream {
  uint64_t stream_id = 0;
  std::string name;  // a label for logs and tools, e.g. "shop.orders/p1/b0"

  bool operator==(const CreateStream&) const = default;
};

struct StreamEpoch {
  uint64_t stream_id = 0;
  int64_t epoch = 0;

  bool operator==(const StreamEpoch&) const = default;
};

// A node takes streams, each at a higher epoch than it has; from then on only commits with that
// epoch by this node process are accepted. All or none.
struct OpenStreams {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::vector<StreamEpoch> streams;

  bool operator==(const OpenStreams&) const = default;
};

// A segment whose writer declared no record timestamps: searches by record time must read it.
inline constexpr int64_t kUnknownRecordTime = std::numeric_limits<int64_t>::max();

// One stream's contiguous run of batches inside an object.
struct SegmentEntry {
  uint64_t stream_id = 0;
  int64_t epoch = 0;         // the writer's stream epoch (checked on commit, not kept)
  int64_t start_offset = 0;  // first offset
  int64_t end_offset = 0;    // one past the last offset
  uint64_t position = 0;     // byte range of the run in the object
  uint64_t length = 0;
  int64_t max_timestamp_ms = 0;  // the newest commit time of its batches
  // An upper bound of the record timestamps its writer declared (Kafka: each record's
  // timestamp); kUnknownRecordTime when a batch declared none.
  int64_t max_record_time_ms = kUnknownRecordTime;

  bool operator==(const SegmentEntry&) const = default;
};

struct ObjectEntry {
  std::string key;
  int32_t bucket_id = 0;  // the store the object lives in
  uint64_t size = 0;
  std::vector<SegmentEntry> segments;

  bool operator==(const ObjectEntry&) const = default;
};

// Commits uploaded WAL objects (group commit: several per command). Refused as a whole if any
// segment's stream epoch or owner does not match or its range does not continue the stream's
// committed end; the writer leaves fenced streams out before it appends.
struct CommitObjects {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::vector<ObjectEntry> objects;

  bool operator==(const CommitObjects&) const = default;
};

// Compaction: replaces the segments of one stream covering [start_offset, end_offset) by the
// segments of one new object covering exactly the same offsets.
struct ReplaceSegments {
  uint64_t stream_id = 0;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  std::vector<std::string> replaced_keys;  // the object of each replaced segment, in order
  ObjectEntry object;

  bool operator==(const ReplaceSegments&) const = default;
};

// Retention: offsets below new_start become unreadable; segments wholly below it are dropped.
struct TrimStream {
  uint64_t stream_id = 0;
  int64_t new_start = 0;

  bool operator==(const TrimStream&) const = default;
};

struct DeleteStream {
  uint64_t stream_id = 0;

  bool operator==(const DeleteStream&) const = default;
};

// Objects that lost their last segment and waited out the grace period were deleted.
struct ForgetObjects {
  std::vector<std::string> keys;

  bool operator==(const ForgetObjects&) const = default;
};

// --- The table catalog. Descriptors are JSON the table layer owns; metadata stores them. ---

struct CreateDatabase {
  std::string name;

  bool operator==(const CreateDatabase&) const = default;
};

struct DropDatabase {
  std::string name;
  bool cascade = false;  // also drop its tables

  bool operator==(const DropDatabase&) const = default;
};

// A table and, unless it is partitioned, the streams of its buckets, created open and owned by
// the creating node process at epoch 1. table_id and first_stream_id must be the next ids.
struct CreateTable {
  std::string database;
  std::string name;
  int64_t table_id = 0;
  std::string descriptor;
  int32_t bucket_count = 1;
  bool partitioned = false;
  uint64_t first_stream_id = 0;
  int32_t owner_node = 0;
  int64_t owner_node_epoch = 0;

  bool operator==(const CreateTable&) const = default;
};

struct DropTable {
  std::string database;
  std::string name;

  bool operator==(const DropTable&) const = default;
};

// A partition of a partitioned table and the streams of its buckets (owned as in CreateTable).
struct CreatePartition {
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
  int64_t table_id = 0;
  std::string descriptor;

  bool operator==(const AlterTable&) const = default;
};

// A writer id for idempotent writes; writer_id must be the next one.
struct AllocateWriterId {
  int64_t writer_id = 0;

  bool operator==(const AllocateWriterId&) const = default;
};

// A KV snapshot of a primary-key bucket: the KV state after every changelog record below
// `offset`. The previous snapshot object of the stream is released.
struct CommitKvSnapshot {
  uint64_t stream_id = 0;
  std::string key;
  int32_t bucket_id = 0;
  uint64_t size = 0;
  int64_t offset = 0;

  bool operator==(const CommitKvSnapshot&) const = default;
};

using Command = std::variant<RegisterNode, CreateStream, OpenStreams, CommitObjects,
                             ReplaceSegments, TrimStream, DeleteStream, ForgetObjects,
                             CreateDatabase, DropDatabase, CreateTable, DropTable, CreatePartition,
                             AlterTable, AllocateWriterId, CommitKvSnapshot>;

std::string KindOf(const Command& command);
std::string EncodeBody(const Command& command);
// InvalidArgument for an unknown kind or a body that does not match it.
Result<Command> DecodeCommand(const std::string& kind, const std::string& body);

}  // namespace mink::metadata
