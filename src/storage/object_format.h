#pragma once
// Segment objects: the immutable objects streams live in. A WAL object holds runs of many
// streams (one run per stream, batches in offset order); a stream object, written by compaction,
// holds one stream in several runs ("blocks") of about a megabyte, so a read fetches one block.
// Layout: [runs][index][32-byte footer]; docs/formats/segment-object.md has every byte.
// The metadata log holds a copy of the index, so reads never fetch the index or the footer; they
// are there so an object can be checked and understood on its own.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "storage/batch_format.h"

namespace mink::storage {

enum class ObjectKind : uint8_t { kWal = 1, kStream = 2 };

struct RunEntry {
  uint64_t stream_id = 0;
  int64_t start_offset = 0;
  int64_t end_offset = 0;
  uint64_t position = 0;
  uint64_t length = 0;
  int64_t max_timestamp_ms = 0;
};

class ObjectBuilder {
 public:
  explicit ObjectBuilder(ObjectKind kind) : kind_(kind) {}

  // Starts a run for a stream; the batches appended next belong to it.
  void BeginRun(uint64_t stream_id);
  // Encodes one batch of the current run into the object.
  void AddBatch(const BatchInput& input, int64_t base_offset, int64_t timestamp_ms);
  // Copies an already encoded batch (compaction moves batches between objects verbatim).
  void AddRawBatch(std::string_view encoded, int64_t base_offset, int32_t record_count,
                   int64_t timestamp_ms);
  void EndRun();

  size_t size() const { return data_.size(); }
  void Reserve(size_t bytes) { data_.reserve(bytes); }
  const std::vector<RunEntry>& runs() const { return runs_; }
  // Appends index and footer and returns the object bytes.
  std::string Finish();

 private:
  ObjectKind kind_;
  void Extend(int64_t base_offset, int32_t record_count, int64_t timestamp_ms);

  std::string data_;
  std::vector<RunEntry> runs_;
  bool in_run_ = false;
};

struct ObjectIndex {
  ObjectKind kind = ObjectKind::kWal;
  std::vector<RunEntry> runs;
};

// Reads the footer and index of a whole object; DataLoss naming `key` if they are damaged.
Result<ObjectIndex> ReadObjectIndex(std::string_view object, const std::string& key);

}  // namespace mink::storage
