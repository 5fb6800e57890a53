// Broker: Produce, Fetch and ListOffsets — the data APIs.

#include <algorithm>
#include <limits>
#include <mutex>

#include "base/log.h"
#include "kafka/server/broker.h"
#include "arrow_format/array.h"
#include "table/payload.h"

namespace mink::kafka {

namespace {

int16_t Code(ErrorCode c) { return ToWire(c); }

// The Kafka error for an append the table layer refused: OutOfRange is a sequence out of order
// and FailedPrecondition a producer epoch older than the producer's (AppendToBucket; a topic's
// table is a log table, so FailedPrecondition cannot mean anything else here). Aborted (the
// bucket moved, or a batch after a gap: WriterStates::Check) is NOT_LEADER_OR_FOLLOWER, which
// every client takes as "not stored, retry after a metadata refresh".
ErrorCode ProduceRefusal(const Status& status) {
  switch (status.code()) {
    case StatusCode::kAborted:
      return ErrorCode::kNotLeaderOrFollower;
    case StatusCode::kOutOfRange:
      return ErrorCode::kOutOfOrderSequenceNumber;
    case StatusCode::kFailedPrecondition:
      return ErrorCode::kInvalidProducerEpoch;
    default:
      return ErrorCodeFromStatus(status, ErrorContext::kProduce);
  }
}

// Collects the commits of one Produce request and answers when the last one is in.
struct ProduceState {
  std::mutex mutex;
  ProduceResponse response;
  int pending = 1;  // one extra held by the dispatcher until every append is submitted
  Broker::Respond respond;
  bool answer = true;

  // Marks one append (or the dispatcher) done; `error` for a failed commit of a partition.
  void Done(size_t topic, size_t partition, ErrorCode error) {
    std::optional<Response> out;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (error != ErrorCode::kNone) {
        auto& p = response.responses[topic].partition_responses[partition];
        if (p.error_code == 0) {
          p.error_code = ToWire(error);
          p.base_offset = -1;
        }
      }
      if (--pending > 0) return;
      if (answer) out = Response(std::move(response));
    }
    respond(std::move(out));
  }
};

}  // namespace

Status Broker::CheckProducedBatches(const std::vector<BatchView>& batches) const {
  for (const BatchView& view : batches) {
    if (view.bytes.size() > options_.max_message_bytes) {
      return ResourceExhaustedError("a record batch of " + std::to_string(view.bytes.size()) +
                                    " bytes is larger than the limit of " +
                                    std::to_string(options_.max_message_bytes) +
                                    " (kafka.max-message-bytes)");
    }
    if (view.header.is_transactional() || view.header.is_control()) {
      return FailedPreconditionError("a transactional batch: Mink does not support transactions");
    }
  }
  return Status::Ok();
}

void Broker::Produce(const ProduceRequest& request, int16_t version, const std::string& user, Respond respond) {
  (void)version;
  auto state = std::make_shared<ProduceState>();
  state->respond = std::move(respond);
  state->answer = request.acks != 0;
  // The response skeleton first, so appends can report into it.
  for (const auto& t : request.topic_data) {
    ProduceResponse::Topic topic;
    topic.name = t.name;
    for (const auto& p : t.partition_data) {
      ProduceResponse::Partition part;
      part.index = p.index;
      topic.partition_responses.push_back(part);
    }
    state->response.responses.push_back(std::move(topic));
  }
  const bool transactional = request.transactional_id.has_value();
  for (size_t ti = 0; ti < request.topic_data.size(); ++ti) {
    const auto& t = request.topic_data[ti];
    Result<int32_t> partitions =
        options_.auto_create_topics && MayCreateTopic(user, t.name) ? topics_.Ensure(t.name) : topics_.Partitions(t.name);
    for (size_t pi = 0; pi < t.partition_data.size(); ++pi) {
      const auto& p = t.partition_data[pi];
      auto& out = state->response.responses[ti].partition_responses[pi];
      auto fail = [&](ErrorCode code, const std::string& why) {
        std::lock_guard<std::mutex> lock(state->mutex);
        out.error_code = Code(code);
        out.base_offset = -1;
        MINK_LOG_DEBUG("kafka", "produce to {}-{} refused: {}", t.name, p.index, why);
      };
      if (!partitions.ok()) {
        fail(ValidateTopicName(t.name).ok() ? ErrorCodeFromStatus(partitions.status(), ErrorContext::kProduce)
                                            : ErrorCode::kInvalidTopicException,
             partitions.status().ToString());
        continue;
      }
      if (p.index < 0 || p.index >= *partitions) {
        fail(ErrorCode::kUnknownTopicOrPartition, "no such partition");
        continue;
      }
      if (transactional) {
        fail(ErrorCode::kInvalidTxnState, "transactions are not supported");
        continue;
      }
      const std::string table = TopicCatalog::TableName(t.name);
      auto stream = tables_->BucketStream(table, p.index);
      if (stream.ok() && !Leads(*stream)) {
        fail(ErrorCode::kNotLeaderOrFollower,
             "node " + std::to_string(options_.node_id) + " does not lead it");
        continue;
      }
      static const std::string kNoRecords;
      const std::string& blob = p.records ? *p.records : kNoRecords;  // the views point into it
      auto batches = SplitBatches(blob);
      if (!batches.ok()) {
        fail(ErrorCode::kCorruptMessage, batches.status().ToString());
        continue;
      }
      // Every batch is checked before any is appended, so a refused partition stores nothing.
      if (Status refused = CheckProducedBatches(*batches); !refused.ok()) {
        fail(refused.code() == StatusCode::kResourceExhausted ? ErrorCode::kMessageTooLarge
                                                              : ErrorCode::kInvalidTxnState,
             refused.ToString());
        continue;
      }
      bool first = true;
      for (const BatchView& view : *batches) {
        auto decoded = DecodeBatch(view);
        if (!decoded.ok()) {
          fail(decoded.status().code() == StatusCode::kUnimplemented ? ErrorCode::kUnsupportedCompressionType
                                                                     : ErrorCode::kCorruptMessage,
               decoded.status().ToString());
          break;
        }
        if (decoded->records.empty()) continue;
        auto arrow_batch = RecordsToArrow(*decoded);
        if (!arrow_batch.ok()) {
          fail(ErrorCode::kCorruptMessage, arrow_batch.status().ToString());
          break;
        }
        {
          std::lock_guard<std::mutex> lock(state->mutex);
          ++state->pending;
        }
        // The index keeps the largest record timestamp, so ListOffsets by timestamp can skip
        // what holds only older records.
        int64_t max_record_time = std::numeric_limits<int64_t>::min();
        for (const RecordView& r : decoded->records) {
          max_record_time = std::max(max_record_time, r.timestamp);
        }
        const RecordBatchHeader& h = view.header;
        table::TableStore::WriterBatch writer{h.producer_id, h.producer_epoch, h.base_sequence,
                                              h.last_sequence(), /*strict=*/true};
        // A retried batch (duplicate) is answered with its first offsets once it is committed.
        auto appended = tables_->AppendToBucket(
            TopicCatalog::TableName(t.name), p.index, **arrow_batch, max_record_time, writer,
            [state, ti, pi](Status s) {
              state->Done(ti, pi, s.ok() ? ErrorCode::kNone : ErrorCodeFromStatus(s, ErrorContext::kProduce));
            });
        if (!appended.ok()) {
          {
            std::lock_guard<std::mutex> lock(state->mutex);
            --state->pending;
          }
          const bool moved = stream.ok() && !Leads(*stream);
          fail(moved ? ErrorCode::kNotLeaderOrFollower : ProduceRefusal(appended.status()),
               appended.status().ToString());
          break;
        }
        if (first) {
          std::lock_guard<std::mutex> lock(state->mutex);
          out.base_offset = appended->base_offset;
          first = false;
        }
      }
    }
  }
  state->Done(0, 0, ErrorCode::kNone);  // the dispatcher's hold
}

namespace {

// How long a fetch waits for a read-ahead of its own request that is still running.
constexpr std::chrono::milliseconds kReadAheadWait{100};
// How many fetches ahead of a consumer the read-ahead encodes: two keeps the next fetch's records
// ready while the client parses, even when one encode takes longer than the client's parse.
constexpr int kReadAheadDepth = 2;

// Encodes the stored batches of `read` as Kafka record batches into `records`, up to about
// `budget` bytes (the first batch whatever its size: clients need progress). `next_offset` is
// the offset after the last batch encoded. On a batch that does not decode, DataLoss naming its
// offset, with the batches before it kept.
Status EncodeStored(const storage::ReadResult& read, int64_t budget, table::PayloadDecoder& decoder,
                    std::string* records, int64_t* next_offset) {
  // Sized once: a Kafka batch is about as large as the Arrow payload it comes from (1 KiB
  // values: a little smaller), so the buffer rarely grows (and copies) while it is filled.
  size_t expected = 0;
  for (const auto& b : read.batches) {
    expected += b->payload.size() + kRecordBatchHeaderSize;
    if (static_cast<int64_t>(expected) >= budget) break;
  }
  records->reserve(records->size() + expected + expected / 8 + 4096);
  for (const auto& b : read.batches) {
    if (!records->empty() && static_cast<int64_t>(records->size()) >= budget) break;
    auto batch = decoder.Decode(b->payload);
    Status s = batch.ok() ? ArrowToRecordBatch(**batch, b->base_offset, b->writer_id,
                                               b->writer_epoch, b->batch_sequence, records)
                          : batch.status();
    if (!s.ok()) {
      return DataLossError("stored batch at offset " + std::to_string(b->base_offset) + ": " +
                           s.ToString());
    }
    *next_offset = b->end_offset();
  }
  return Status::Ok();
}

}  // namespace

void Broker::MaybeReadAhead(uint64_t stream, int64_t offset, int64_t end, int64_t budget,
                            int depth) {
  if (options_.fetch_read_ahead_bytes == 0 || stopping_ || budget <= 0) return;
  auto claimed = ahead_.ClaimInChain(stream, offset, end, budget, depth);
  if (!claimed) return;
  const auto [from, link] = *claimed;
  ahead_pool_.Submit([this, stream, from, budget, more = depth - link - 1] {
    std::optional<FetchAheadCache::Entry> entry;
    if (!stopping_) {
      auto read = log_->Read(stream, from, static_cast<size_t>(budget));
      auto decoder = table::PayloadDecoder::Make(TopicSchema());
      if (read.ok() && !read->batches.empty() && decoder.ok()) {
        FetchAheadCache::Entry e;
        e.next_offset = from;
        e.end_at_read = read->end_offset;
        if (EncodeStored(*read, budget, *decoder, &e.records, &e.next_offset).ok() &&
            !e.records.empty()) {
          entry = std::move(e);
        }
      }
    }
    // The chain goes on from a link that stopped on its budget (before the end it saw).
    const bool go_on = entry && more > 0 && entry->next_offset < entry->end_at_read;
    const int64_t next = go_on ? entry->next_offset : 0, end_seen = go_on ? entry->end_at_read : 0;
    ahead_.Complete(stream, from, budget, std::move(entry));
    if (go_on) MaybeReadAhead(stream, next, end_seen, budget, more);
  });
}

void Broker::ReadPartition(const std::string& topic, uint64_t stream, int64_t offset,
                           int64_t budget, FetchResponse::Partition* part) {
  auto read = log_->Read(stream, offset, static_cast<size_t>(std::max<int64_t>(budget, 1)));
  if (!read.ok()) {
    part->error_code = Code(ErrorCodeFromStatus(read.status(), ErrorContext::kFetch));
    part->high_watermark = -1;
    // Out of range: the partition's real offsets (Kafka sends -1; clients reset through
    // ListOffsets either way).
    if (read.status().code() == StatusCode::kOutOfRange) {
      if (auto range = log_->OffsetRange(stream)) {
        part->high_watermark = range->end;
        part->last_stable_offset = range->end;
        part->log_start_offset = range->start;
      }
    }
    return;
  }
  part->high_watermark = read->end_offset;
  part->last_stable_offset = read->end_offset;
  part->log_start_offset = read->start_offset;
  auto decoder = table::PayloadDecoder::Make(TopicSchema());
  std::string records;
  int64_t next_offset = offset;
  Status encoded = decoder.ok() ? EncodeStored(*read, budget, *decoder, &records, &next_offset)
                                : decoder.status();
  if (!encoded.ok()) {
    part->error_code = Code(ErrorCode::kCorruptMessage);
    MINK_LOG_ERROR("kafka", "fetch {}-{}: {}", topic, part->partition_index, encoded.ToString());
  } else {
    MaybeReadAhead(stream, next_offset, read->end_offset, budget, kReadAheadDepth);
  }
  part->records = std::move(records);
}

FetchResponse Broker::FetchOnce(const FetchRequest& request, int64_t* total_bytes) {
  FetchResponse response;
  *total_bytes = 0;
  const int64_t max_bytes = request.max_bytes > 0 ? request.max_bytes : INT32_MAX;
  // Partitions whose records the read-ahead does not have: read from the store afterwards, all
  // at once (a store such as S3 takes tens of milliseconds a call).
  struct ColdRead {
    size_t topic, partition;
    uint64_t stream;
    int64_t offset, budget;
  };
  std::vector<ColdRead> cold;
  for (const auto& t : request.topics) {
    FetchResponse::Topic& topic = response.responses.emplace_back();
    topic.topic = t.topic;
    const std::string table = TopicCatalog::TableName(t.topic);
    Result<int32_t> partitions = topics_.Partitions(t.topic);
    for (const auto& p : t.partitions) {
      FetchResponse::Partition& part = topic.partitions.emplace_back();
      part.partition_index = p.partition;
      part.aborted_transactions = std::vector<FetchResponse::AbortedTransaction>{};
      uint64_t stream = 0;
      if (!PartitionStream(table, partitions, p.partition, ErrorContext::kFetch, &stream,
                           &part.error_code)) {
        part.high_watermark = -1;  // unknown, as Kafka answers for a partition in error
        continue;
      }
      if (!Leads(stream)) {
        // Another node leads it now: the client refreshes its metadata and goes there. Worth
        // answering at once rather than after the long poll.
        part.error_code = Code(ErrorCode::kNotLeaderOrFollower);
        part.high_watermark = -1;
        *total_bytes = std::max<int64_t>(*total_bytes, 1);
        continue;
      }
      if (ErrorCode fenced = CheckLeaderEpoch(stream, p.current_leader_epoch);
          fenced != ErrorCode::kNone) {
        // The client's metadata and this broker's disagree on the partition's epoch: it
        // refreshes its metadata (both codes are retriable) and fetches again.
        part.error_code = Code(fenced);
        part.high_watermark = -1;
        *total_bytes = std::max<int64_t>(*total_bytes, 1);
        continue;
      }
      const int64_t budget = std::max<int64_t>(0, std::min<int64_t>(p.partition_max_bytes, max_bytes - *total_bytes));
      if (auto ahead = ahead_.Take(stream, p.fetch_offset, budget, kReadAheadWait)) {
        // Used when it is what this fetch would encode now (Entry::ServesFetch).
        auto range = log_->OffsetRange(stream);
        if (range && ahead->ServesFetch(p.fetch_offset, budget, range->start, range->end)) {
          part.high_watermark = range->end;
          part.last_stable_offset = range->end;
          part.log_start_offset = range->start;
          MaybeReadAhead(stream, ahead->next_offset, part.high_watermark, budget, kReadAheadDepth);
          *total_bytes += static_cast<int64_t>(ahead->records.size());
          part.records = std::move(ahead->records);
          continue;
        }
      }
      cold.push_back({response.responses.size() - 1, topic.partitions.size() - 1, stream,
                      p.fetch_offset, budget});
    }
  }
  std::vector<std::function<void()>> reads;
  for (const ColdRead& c : cold) {
    FetchResponse::Topic* topic = &response.responses[c.topic];
    FetchResponse::Partition* part = &topic->partitions[c.partition];
    reads.push_back([this, topic, part, c] {
      ReadPartition(topic->topic, c.stream, c.offset, c.budget, part);
    });
  }
  RunTogether(&read_pool_, std::move(reads));
  // The reads could not see each other's sizes, and a read-ahead entry may end past its budget:
  // keep the response within max_bytes in request order (the first partition with records may
  // exceed it, so that the client makes progress).
  *total_bytes = 0;
  for (auto& topic : response.responses) {
    for (auto& part : topic.partitions) {
      const int64_t size = part.records ? static_cast<int64_t>(part.records->size()) : 0;
      if (size > 0 && *total_bytes > 0 && *total_bytes + size > max_bytes) {
        part.records = std::string();
        continue;
      }
      *total_bytes += size;
    }
  }
  return response;
}

void Broker::Fetch(const FetchRequest& request, int16_t version, Respond respond) {
  (void)version;
  if (stopping_) return;  // the server is going: its connections close unanswered, clients go elsewhere
  int64_t bytes = 0;
  int64_t seen_seq = log_->CommitPosition();
  FetchResponse first = FetchOnce(request, &bytes);
  if (bytes >= std::max(request.min_bytes, 1) || request.max_wait_ms <= 0) {
    respond(Response(std::move(first)));
    return;
  }
  // Long poll on a fetch thread: wake on every commit until enough data or the deadline.
  auto deadline = SteadyNow() + std::chrono::milliseconds(request.max_wait_ms);
  fetch_pool_.Submit([this, request, deadline, seen_seq, respond = std::move(respond)]() mutable {
    int64_t seq = seen_seq;
    while (!stopping_) {
      auto now = SteadyNow();
      if (now >= deadline) break;
      int64_t applied = log_->WaitForCommit(
          seq, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) +
                   std::chrono::milliseconds(1));
      if (applied == seq) continue;
      seq = applied;
      int64_t bytes = 0;
      FetchResponse response = FetchOnce(request, &bytes);
      if (bytes >= std::max(request.min_bytes, 1)) {
        respond(Response(std::move(response)));
        return;
      }
    }
    if (stopping_) return;  // as above: no reads for an answer nobody will get
    int64_t bytes = 0;
    respond(Response(FetchOnce(request, &bytes)));
  });
}

Result<std::pair<int64_t, int64_t>> Broker::OffsetForTimestamp(uint64_t stream, int64_t timestamp,
                                                               int64_t end) {
  // Records carry their producer's timestamps. The index bounds each segment's largest record
  // timestamp, so only segments that can hold a record at or after `timestamp` are read, in
  // offset order, until the first such record. Segments written without a bound (before the
  // index had one, or by a writer that declared none) are read when committed no more than an
  // hour before the timestamp: producers' clocks run ahead, and batches wait to be sent.
  constexpr int64_t kUndeclaredSlackMs = 3600 * 1000;
  MINK_ASSIGN_OR_RETURN(auto decoder, table::PayloadDecoder::Make(TopicSchema()));
  for (auto [at, range_end] : log_->RecordTimeRanges(stream, timestamp, kUndeclaredSlackMs)) {
    range_end = std::min(range_end, end);
    while (at < range_end) {
      MINK_ASSIGN_OR_RETURN(storage::ReadResult r, log_->Read(stream, at, 1 << 20));
      if (r.batches.empty()) break;
      for (const auto& b : r.batches) {
        if (b->base_offset >= range_end) {
          at = range_end;  // the next range's turn
          break;
        }
        MINK_ASSIGN_OR_RETURN(auto batch, decoder.DecodeProjected(b->payload, {3}));
        arrow::Int64Array ts(batch->Column(0));
        for (int64_t i = 0; i < ts.length(); ++i) {
          if (b->base_offset + i >= at && !ts.IsNull(i) && ts.Value(i) >= timestamp) {
            return std::make_pair(b->base_offset + i, ts.Value(i));
          }
        }
        at = b->end_offset();
      }
    }
  }
  return std::make_pair(int64_t{-1}, int64_t{-1});  // nothing at or after the timestamp
}

bool Broker::PartitionStream(const std::string& table, const Result<int32_t>& partitions,
                             int32_t index, ErrorContext context, uint64_t* stream,
                             int16_t* error) {
  if (!partitions.ok() || index < 0 || index >= *partitions) {
    *error = Code(ErrorCode::kUnknownTopicOrPartition);
    return false;
  }
  auto found = tables_->BucketStream(table, index);
  if (!found.ok()) {
    *error = Code(ErrorCodeFromStatus(found.status(), context));
    return false;
  }
  *stream = *found;
  return true;
}

DeleteRecordsResponse Broker::DeleteRecords(const DeleteRecordsRequest& request) {
  DeleteRecordsResponse response;
  for (const auto& t : request.topics) {
    DeleteRecordsResponse::Topic topic;
    topic.name = t.name;
    const std::string table = TopicCatalog::TableName(t.name);
    Result<int32_t> partitions = topics_.Partitions(t.name);
    for (const auto& p : t.partitions) {
      DeleteRecordsResponse::Partition& part =
          topic.partitions.emplace_back(DeleteRecordsResponse::Partition{p.partition_index});
      uint64_t stream = 0;
      if (!PartitionStream(table, partitions, p.partition_index, ErrorContext::kDefault, &stream,
                           &part.error_code)) {
        continue;
      }
      auto [start, end] = StreamRange(stream);
      const int64_t target = p.offset == kDeleteRecordsToHighWatermark ? end : p.offset;
      if (target < 0 || target > end) {
        part.error_code = Code(ErrorCode::kOffsetOutOfRange);
        MINK_LOG_DEBUG("kafka", "delete records of {}-{} below {} refused: the log ends at {}",
                       t.name, p.partition_index, p.offset, end);
        continue;
      }
      if (target > start) {
        Status s = log_->TrimBefore(stream, target);
        start = StreamRange(stream).first;  // a retention trim may have passed it meanwhile
        if (!s.ok() && start < target) {
          part.error_code = Code(ErrorCodeFromStatus(s));
          MINK_LOG_WARN("kafka", "delete records of {}-{} below {}: {}", t.name,
                        p.partition_index, target, s.ToString());
          continue;
        }
      }
      part.low_watermark = std::max(start, target);
    }
    response.topics.push_back(std::move(topic));
  }
  return response;
}

ListOffsetsResponse Broker::ListOffsets(const ListOffsetsRequest& request, int16_t version) {
  ListOffsetsResponse response;
  for (const auto& t : request.topics) {
    ListOffsetsResponse::Topic topic;
    topic.name = t.name;
    const std::string table = TopicCatalog::TableName(t.name);
    Result<int32_t> partitions = topics_.Partitions(t.name);
    for (const auto& p : t.partitions) {
      ListOffsetsResponse::Partition part;
      part.partition_index = p.partition_index;
      uint64_t stream = 0;
      const bool found = PartitionStream(table, partitions, p.partition_index,
                                         ErrorContext::kDefault, &stream, &part.error_code);
      int64_t start = 0, end = 0;
      if (found) std::tie(start, end) = StreamRange(stream);
      if (found) {
        if (ErrorCode fenced = CheckLeaderEpoch(stream, p.current_leader_epoch);
            fenced != ErrorCode::kNone) {
          part.error_code = Code(fenced);
          part.offset = -1;
          topic.partitions.push_back(std::move(part));
          continue;
        }
      }
      int64_t offset = -1;  // when not found, part.error_code says why
      if (found && p.timestamp == kListOffsetsLatest) {
        offset = end;
      } else if (found && p.timestamp == kListOffsetsEarliest) {
        offset = start;
      } else if (found) {
        auto match = OffsetForTimestamp(stream, p.timestamp, end);
        if (!match.ok()) {
          part.error_code = Code(ErrorCodeFromStatus(match.status()));
        } else {
          offset = match->first;
          part.timestamp = match->second;
        }
      }
      if (version == 0) {
        if (offset >= 0) part.old_style_offsets = {offset};
      } else {
        part.offset = offset;
      }
      topic.partitions.push_back(std::move(part));
    }
    response.topics.push_back(std::move(topic));
  }
  return response;
}

}  // namespace mink::kafka
