#include "table/writer_state.h"

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <iterator>
#include <string>

#include "base/clock.h"

namespace mink::table {

void PendingCommit::OnDone(std::function<void(Status)> done) {
  Status known;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!status_) {
      waiting_.push_back(std::move(done));
      return;
    }
    known = *status_;
  }
  done(std::move(known));
}

void PendingCommit::Resolve(const Status& status) {
  std::vector<std::function<void(Status)>> waiting;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_ = status;
    waiting.swap(waiting_);
  }
  for (auto& done : waiting) done(status);
}

namespace {

// A strict writer's batch that comes after a gap: the batches before it were sent but are not
// stored (their append failed, perhaps with an answer that said they might be), and the
// writer will send them again. A retriable refusal that says nothing was stored, not "out of
// order": librdkafka takes an out-of-order answer to the batch right after one it was told may
// be stored as fatal.
Status MissingBefore(int64_t writer_id, int32_t sequence, const std::string& expected) {
  return AbortedError("writer " + std::to_string(writer_id) + " sent sequence " +
                      std::to_string(sequence) + " but the batches before it are not stored (" +
                      expected + "); they are to be sent again first");
}

}  // namespace

Result<std::optional<WrittenBatch>> WriterStates::Check(int64_t writer_id, int16_t epoch,
                                                        int32_t sequence, bool strict) const {
  auto it = writers_.find(writer_id);
  // A writer without state (new, or its batches expired) may start at any sequence.
  if (it == writers_.end() || it->second.batches.empty()) return std::optional<WrittenBatch>();
  const Writer& writer = it->second;
  if (epoch < writer.epoch) {
    return FailedPreconditionError("writer " + std::to_string(writer_id) + " has epoch " +
                                   std::to_string(writer.epoch) + "; a batch of its epoch " +
                                   std::to_string(epoch) + " is refused (a fenced producer)");
  }
  if (epoch > writer.epoch) {
    if (strict && sequence != 0) {
      return MissingBefore(writer_id, sequence, "epoch " + std::to_string(epoch) + " begins at 0");
    }
    return std::optional<WrittenBatch>();
  }
  for (const auto& b : writer.batches) {
    if (b.sequence == sequence) return std::optional<WrittenBatch>(b);
  }
  int32_t last = writer.batches.back().Last();
  bool in_order = strict ? (sequence == last + 1 || (last == INT32_MAX && sequence == 0))
                         : sequence > last;
  if (strict && !in_order && int64_t{sequence} > int64_t{last} + 1) {
    return MissingBefore(writer_id, sequence, "the last stored is " + std::to_string(last));
  }
  if (!in_order) {
    return OutOfRangeError("out of order batch sequence for writer " + std::to_string(writer_id) +
                           ": " + std::to_string(sequence) + " (incoming), " +
                           std::to_string(last) + " (last written)");
  }
  return std::optional<WrittenBatch>();
}

void WriterStates::Record(int64_t writer_id, int16_t epoch, WrittenBatch batch) {
  if (batch.time_ms <= 0) batch.time_ms = SystemClock::Get()->NowMillis();
  Writer& writer = writers_[writer_id];
  if (epoch != writer.epoch) {  // a newer epoch (Check refuses older ones): a new history
    writer.epoch = epoch;
    writer.batches.clear();
  }
  writer.batches.push_back(std::move(batch));
  while (writer.batches.size() > kKept) writer.batches.pop_front();
}

int64_t WriterStates::MaxEndOffset() const {
  int64_t end = 0;
  for (const auto& [id, w] : writers_) {
    for (const auto& b : w.batches) end = std::max(end, b.end_offset);
  }
  return end;
}

void WriterStates::Expire(int64_t before_ms) {
  for (auto it = writers_.begin(); it != writers_.end();) {
    const bool idle = it->second.batches.empty() || it->second.batches.back().time_ms < before_ms;
    it = idle ? writers_.erase(it) : std::next(it);
  }
}

std::string WriterStates::EncodeCheckpoint(int64_t end_offset) const {
  nlohmann::json writers = nlohmann::json::array();
  for (const auto& [id, w] : writers_) {
    nlohmann::json batches = nlohmann::json::array();
    for (const auto& b : w.batches) {
      if (b.end_offset > end_offset) continue;  // after the checkpoint: replayed from the log
      batches.push_back({b.sequence, b.base_offset, b.end_offset, b.last_sequence, b.time_ms});
    }
    if (!batches.empty()) writers.push_back({id, w.epoch, batches});
  }
  return nlohmann::json{{"end", end_offset}, {"writers", writers}}.dump();
}

Result<WriterStates> WriterStates::DecodeCheckpoint(std::string_view text, int64_t* end_offset) {
  try {
    auto j = nlohmann::json::parse(text);
    WriterStates states;
    *end_offset = j.at("end").get<int64_t>();
    for (const auto& w : j.at("writers")) {
      const auto id = w.at(0).get<int64_t>();
      const auto epoch = w.at(1).get<int16_t>();
      for (const auto& b : w.at(2)) {
        // Checkpoints older than writer times have none: the writer counts as written now.
        const int64_t time_ms = b.size() > 4 ? b.at(4).get<int64_t>() : 0;
        states.Record(id, epoch,
                      WrittenBatch{b.at(0).get<int32_t>(), b.at(1).get<int64_t>(),
                                   b.at(2).get<int64_t>(), b.at(3).get<int32_t>(), nullptr,
                                   time_ms});
      }
    }
    return states;
  } catch (const std::exception& e) {
    return DataLossError(std::string("a writers checkpoint does not parse: ") + e.what());
  }
}

}  // namespace mink::table
