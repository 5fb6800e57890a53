#include "kafka/protocol/transactions.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class M>
void AddPartitionsRequestFields(IO& io, M& m) {
  io.String("transactional_id", m.transactional_id);
  io.Int64("producer_id", m.producer_id);
  io.Int16("producer_epoch", m.producer_epoch);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, Int32Element(io));
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void AddPartitionsResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("results_by_topic", m.results_by_topic, [&](auto& t) {
    io.String("name", t.name);
    io.Array("results_by_partition", t.results_by_partition, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int16("partition_error_code", p.partition_error_code);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void AddOffsetsRequestFields(IO& io, M& m) {
  io.String("transactional_id", m.transactional_id);
  io.Int64("producer_id", m.producer_id);
  io.Int16("producer_epoch", m.producer_epoch);
  io.String("group_id", m.group_id);
  io.Tags();
}

// AddOffsetsToTxn and EndTxn responses share this layout.
template <class IO, class M>
void ThrottleAndErrorFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Tags();
}

template <class IO, class M>
void EndTxnRequestFields(IO& io, M& m) {
  io.String("transactional_id", m.transactional_id);
  io.Int64("producer_id", m.producer_id);
  io.Int16("producer_epoch", m.producer_epoch);
  io.Bool("committed", m.committed);
  io.Tags();
}

template <class IO, class M>
void TxnOffsetCommitRequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.String("transactional_id", m.transactional_id);
  io.String("group_id", m.group_id);
  io.Int64("producer_id", m.producer_id);
  io.Int16("producer_epoch", m.producer_epoch);
  if (v >= 3) {
    io.Int32("generation_id", m.generation_id);
    io.String("member_id", m.member_id);
    io.NullableString("group_instance_id", m.group_instance_id);
  }
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int64("committed_offset", p.committed_offset);
      if (v >= 2) io.Int32("committed_leader_epoch", p.committed_leader_epoch);
      io.NullableString("committed_metadata", p.committed_metadata);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void TxnOffsetCommitResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int16("error_code", p.error_code);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(AddPartitionsToTxnRequest, AddPartitionsRequestFields)
MINK_KAFKA_DEFINE_CODEC(AddPartitionsToTxnResponse, AddPartitionsResponseFields)
MINK_KAFKA_DEFINE_CODEC(AddOffsetsToTxnRequest, AddOffsetsRequestFields)
MINK_KAFKA_DEFINE_CODEC(AddOffsetsToTxnResponse, ThrottleAndErrorFields)
MINK_KAFKA_DEFINE_CODEC(EndTxnRequest, EndTxnRequestFields)
MINK_KAFKA_DEFINE_CODEC(EndTxnResponse, ThrottleAndErrorFields)
MINK_KAFKA_DEFINE_CODEC(TxnOffsetCommitRequest, TxnOffsetCommitRequestFields)
MINK_KAFKA_DEFINE_CODEC(TxnOffsetCommitResponse, TxnOffsetCommitResponseFields)

AddPartitionsToTxnResponse ErrorResponse(const AddPartitionsToTxnRequest& request, int16_t,
                                         ErrorCode code) {
  AddPartitionsToTxnResponse r;
  for (const auto& t : request.topics) {
    AddPartitionsToTxnResponse::TopicResult topic;
    topic.name = t.name;
    for (int32_t p : t.partitions) topic.results_by_partition.push_back({p, ToWire(code)});
    r.results_by_topic.push_back(std::move(topic));
  }
  return r;
}

AddOffsetsToTxnResponse ErrorResponse(const AddOffsetsToTxnRequest&, int16_t, ErrorCode code) {
  AddOffsetsToTxnResponse r;
  r.error_code = ToWire(code);
  return r;
}

EndTxnResponse ErrorResponse(const EndTxnRequest&, int16_t, ErrorCode code) {
  EndTxnResponse r;
  r.error_code = ToWire(code);
  return r;
}

TxnOffsetCommitResponse ErrorResponse(const TxnOffsetCommitRequest& request, int16_t,
                                      ErrorCode code) {
  TxnOffsetCommitResponse r;
  for (const auto& t : request.topics) {
    TxnOffsetCommitResponse::Topic topic;
    topic.name = t.name;
    for (const auto& p : t.partitions) topic.partitions.push_back({p.partition_index, ToWire(code)});
    r.topics.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
