#include "kafka/protocol/list_offsets.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int64Element;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.Int32("replica_id", m.replica_id);
  if (v >= 2) io.Int8("isolation_level", m.isolation_level);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      if (v >= 4) io.Int32("current_leader_epoch", p.current_leader_epoch);
      io.Int64("timestamp", p.timestamp);
      if (v == 0) io.Int32("max_num_offsets", p.max_num_offsets);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 2) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int16("error_code", p.error_code);
      if (v == 0) io.Array("old_style_offsets", p.old_style_offsets, Int64Element(io));
      if (v >= 1) {
        io.Int64("timestamp", p.timestamp);
        io.Int64("offset", p.offset);
      }
      if (v >= 4) io.Int32("leader_epoch", p.leader_epoch);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(ListOffsetsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(ListOffsetsResponse, ResponseFields)

ListOffsetsResponse ErrorResponse(const ListOffsetsRequest& request, int16_t /*version*/,
                                  ErrorCode code) {
  ListOffsetsResponse r;
  for (const auto& t : request.topics) {
    ListOffsetsResponse::Topic topic;
    topic.name = t.name;
    for (const auto& p : t.partitions) {
      ListOffsetsResponse::Partition partition;
      partition.partition_index = p.partition_index;
      partition.error_code = ToWire(code);
      topic.partitions.push_back(partition);
    }
    r.topics.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
