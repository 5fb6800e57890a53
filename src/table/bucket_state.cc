#include "table/bucket_state.h"

#include <optional>

#include "base/log.h"
#include "table/arrow_rows.h"
#include "table/changelog.h"
#include "table/payload.h"
#include "table/row_codec.h"

namespace mink::table {

using metadata::State;

BucketState* BucketStates::Get(uint64_t stream_id, const std::string& label) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto& b = buckets_[stream_id];
  if (!b) {
    b = std::make_unique<BucketState>();
    b->stream_id = stream_id;
    b->label = label;
  }
  return b.get();
}

void BucketStates::Invalidate(const std::vector<uint64_t>& streams) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint64_t s : streams) {
    auto it = buckets_.find(s);
    if (it != buckets_.end()) it->second->writers_stale = true;
  }
}

void BucketStates::Forget(const std::vector<uint64_t>& streams) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (uint64_t s : streams) buckets_.erase(s);
}

std::map<uint64_t, BucketState*> BucketStates::All() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::map<uint64_t, BucketState*> all;
  for (const auto& [stream, b] : buckets_) all[stream] = b.get();
  return all;
}

Status BucketStates::Load(const ResolvedTable& table, BucketState* bucket) {
  if (bucket->writers_stale.exchange(false)) {
    bucket->loaded = false;
    bucket->writers.Clear();
  }
  if (bucket->loaded) return Status::Ok();
  // Rebuilt from nothing: what was here may be older than the stream (another node wrote it).
  bucket->kv = KvState();
  bucket->writers.Clear();
  bucket->snapshot_offset = 0;
  int64_t start = 0, end = 0;
  std::optional<metadata::KvSnapshotState> snapshot;
  meta_->Read([&](const State& s) {
    const metadata::StreamState* st = s.FindStream(bucket->stream_id);
    if (st != nullptr) {
      start = st->start_offset;
      end = st->end_offset;
    }
    auto it = s.kv_snapshots().find(bucket->stream_id);
    if (it != s.kv_snapshots().end()) snapshot = it->second;
  });
  int64_t from = start;
  const bool keyed = table.d.has_primary_key();
  if (keyed && snapshot) {
    MINK_ASSIGN_OR_RETURN(std::string bytes, storage_->data_store()->Get(snapshot->key));
    int64_t covered = 0;
    MINK_ASSIGN_OR_RETURN(bucket->kv, KvState::Load(bytes, snapshot->key, &covered));
    from = std::max(start, covered);
    bucket->snapshot_offset = covered;
  } else if (keyed && start > 0) {
    return DataLossError("bucket " + bucket->label + " of " + table.name +
                         ": the changelog was trimmed to " + std::to_string(start) +
                         " and no KV snapshot covers it");
  } else if (!keyed) {
    from = std::max(start, end - writer_replay_offsets_);
  }
  std::optional<PayloadDecoder> decoder;
  if (keyed) {
    MINK_ASSIGN_OR_RETURN(auto d, PayloadDecoder::Make(table.schema));
    decoder.emplace(std::move(d));
  }
  int64_t at = from;
  while (at < end) {
    MINK_ASSIGN_OR_RETURN(storage::ReadResult r, storage_->Read(bucket->stream_id, at, 4 << 20));
    if (r.batches.empty()) break;
    for (const auto& b : r.batches) {
      if (b->writer_id >= 0) {
        int32_t last = table.d.sequence_per_record ? b->batch_sequence + b->record_count - 1 : -1;
        bucket->writers.Record(b->writer_id, b->writer_epoch,
                               WrittenBatch{b->batch_sequence, b->base_offset, b->end_offset(), last});
      }
      if (keyed && b->end_offset() > from) {
        MINK_ASSIGN_OR_RETURN(auto batch, decoder->Decode(b->payload));
        std::vector<Row> rows = BatchToRows(*batch, table.types);
        for (size_t i = 0; i < rows.size(); ++i) {
          if (b->base_offset + static_cast<int64_t>(i) < from) continue;
          auto type = static_cast<ChangeType>(i < b->change_types.size() ? b->change_types[i] : 1);
          if (type == ChangeType::kUpdateBefore) continue;
          std::vector<Value> key_values;
          for (int k : table.pk) key_values.push_back(rows[i][static_cast<size_t>(k)]);
          MINK_ASSIGN_OR_RETURN(std::string key, EncodeCompactedKey(key_values, table.pk_types));
          if (type == ChangeType::kDelete) {
            bucket->kv.Erase(key);
          } else {
            std::string value;
            EncodeRow(rows[i], table.types, &value);
            bucket->kv.Put(key, std::move(value));
          }
        }
      }
      at = b->end_offset();
    }
  }
  bucket->applied_offset = end;
  bucket->loaded = true;
  if (keyed) {
    MINK_LOG_INFO("table", "rebuilt {} {} : {} keys, snapshot at {}, replayed {}..{}", table.name,
                  bucket->label, bucket->kv.size(), bucket->snapshot_offset, from, end);
  }
  return Status::Ok();
}

}  // namespace mink::table
