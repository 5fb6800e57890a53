#pragma once
// The commands of the metadata log, as typed values. Each has a `kind` string and a JSON body
// (commands.cc converts both ways); the state machine (state.h) validates and applies them.
// Commands are deterministic: everything that validation or application needs is in the command
// or in the state, never in the clock or the environment of the node applying it.

#include <cstdint>
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
};

// A new stream; stream_id must equal the state's next_stream_id.
struct CreateStream {
  uint64_t stream_id = 0;
  std::string name;  // a label for logs and tools, e.g. "shop.orders/p1/b0"
};

// A node takes a stream at a higher epoch; from now on only commits with this epoch by this
// node process are accepted.
struct OpenStream {
  uint64_t stream_id = 0;
  int64_t epoch = 0;
  int32_t node_id = 0;
  int64_t node_epoch = 0;
};

// One stream's contiguous run of batches inside an object.
struct SegmentEntry {
  uint64_t stream_id = 0;
  int64_t epoch = 0;         // the writer's stream epoch (checked on commit, not kept)
  int64_t start_offset = 0;  // first offset
  int64_t end_offset = 0;    // one past the last offset
  uint64_t position = 0;     // byte range of the run in the object
  uint64_t length = 0;
  int64_t max_timestamp_ms = 0;
};

struct ObjectEntry {
  std::string key;
  int32_t bucket_id = 0;  // the store the object lives in
  uint64_t size = 0;
  std::vector<SegmentEntry> segments;
};

// Commits uploaded WAL objects (group commit: several per command). Refused as a whole if any
// segment's stream epoch or owner does not match or its range does not continue the stream's
// committed end; the writer leaves fenced streams out before it appends.
struct CommitObjects {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::vector<ObjectEntry> objects;
};

// Compaction: replaces the segments of one stream covering [start_offset, end_offset) by the
// segments of one new object covering exactly the same offsets.
struct ReplaceSegments {
  uint64_t stream_id = 0;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  std::vector<std::string> replaced_keys;  // the object of each replaced segment, in order
  ObjectEntry object;
};

// Retention: offsets below new_start become unreadable; segments wholly below it are dropped.
struct TrimStream {
  uint64_t stream_id = 0;
  int64_t new_start = 0;
};

struct DeleteStream {
  uint64_t stream_id = 0;
};

// Objects that lost their last segment and waited out the grace period were deleted.
struct ForgetObjects {
  std::vector<std::string> keys;
};

using Command = std::variant<RegisterNode, CreateStream, OpenStream, CommitObjects,
                             ReplaceSegments, TrimStream, DeleteStream, ForgetObjects>;

std::string KindOf(const Command& command);
std::string EncodeBody(const Command& command);
// InvalidArgument for an unknown kind or a body that does not match it.
Result<Command> DecodeCommand(const std::string& kind, const std::string& body);

}  // namespace mink::metadata
