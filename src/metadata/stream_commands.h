#pragma once
// Metadata commands of the streams-and-objects domain: streams, their owners and epochs, the
// objects holding their batches (WAL commits, compaction), trimming and garbage.
// A command's `kKind` names it in the log; commands.h has the variant of every command and
// their JSON bodies; the state machine validates and applies them (state.h).

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace mink::metadata {

// A new stream; stream_id must equal the state's next_stream_id.
struct CreateStream {
  static constexpr std::string_view kKind = "stream.create";
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
  static constexpr std::string_view kKind = "streams.open";
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
  static constexpr std::string_view kKind = "objects.commit";
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::vector<ObjectEntry> objects;

  bool operator==(const CommitObjects&) const = default;
};

// Compaction: replaces the segments of one stream covering [start_offset, end_offset) by the
// segments of one new object covering exactly the same offsets.
struct ReplaceSegments {
  static constexpr std::string_view kKind = "stream.replace";
  uint64_t stream_id = 0;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  std::vector<std::string> replaced_keys;  // the object of each replaced segment, in order
  ObjectEntry object;

  bool operator==(const ReplaceSegments&) const = default;
};

// Retention: offsets below new_start become unreadable; segments wholly below it are dropped.
struct TrimStream {
  static constexpr std::string_view kKind = "stream.trim";
  uint64_t stream_id = 0;
  int64_t new_start = 0;

  bool operator==(const TrimStream&) const = default;
};

struct DeleteStream {
  static constexpr std::string_view kKind = "stream.delete";
  uint64_t stream_id = 0;

  bool operator==(const DeleteStream&) const = default;
};

// The coordinator gives streams to nodes: each named node is to serve its stream from now on.
// The node opens it (at epoch + 1) once it has no owner: after the previous owner flushed and
// released it (ReleaseStreams), or at once with `takeover`, which the coordinator sets when the
// owner is dead: applying it clears the owner, so the dead owner's commits are refused from
// then on. Valid only from the elected coordinator at its lease epoch (ElectCoordinator), for
// registered nodes.
struct StreamAssignment {
  uint64_t stream_id = 0;
  int32_t node_id = 0;
  bool takeover = false;

  bool operator==(const StreamAssignment&) const = default;
};

struct AssignStreams {
  static constexpr std::string_view kKind = "streams.assign";
  int32_t coordinator = 0;
  int64_t lease_epoch = 0;
  std::vector<StreamAssignment> assignments;

  bool operator==(const AssignStreams&) const = default;
};

// A node process gives up streams it owns (a planned move, or its shutdown) after every append
// of them was committed or failed: they keep their epoch and have no owner until their
// assigned node opens them. All or none.
struct ReleaseStreams {
  static constexpr std::string_view kKind = "streams.release";
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::vector<uint64_t> stream_ids;

  bool operator==(const ReleaseStreams&) const = default;
};

// Objects that lost their last segment and waited out the grace period were deleted.
struct ForgetObjects {
  static constexpr std::string_view kKind = "objects.forget";
  std::vector<std::string> keys;

  bool operator==(const ForgetObjects&) const = default;
};

}  // namespace mink::metadata
