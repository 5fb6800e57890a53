#include "kafka/protocol/offset_commit.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.String("group_id", m.group_id);
  if (v >= 1) {
    io.Int32("generation_id_or_member_epoch", m.generation_id_or_member_epoch);
    io.String("member_id", m.member_id);
  }
  if (v >= 7) io.NullableString("group_instance_id", m.group_instance_id);
  if (v >= 2 && v <= 4) io.Int64("retention_time_ms", m.retention_time_ms);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int64("committed_offset", p.committed_offset);
      if (v >= 6) io.Int32("committed_leader_epoch", p.committed_leader_epoch);
      if (v == 1) io.Int64("commit_timestamp", p.commit_timestamp);
      io.NullableString("committed_metadata", p.committed_metadata);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  if (io.version() >= 3) io.Int32("throttle_time_ms", m.throttle_time_ms);
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

MINK_KAFKA_DEFINE_CODEC(OffsetCommitRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(OffsetCommitResponse, ResponseFields)

OffsetCommitResponse ErrorResponse(const OffsetCommitRequest& request, int16_t /*version*/,
                                   ErrorCode code) {
  OffsetCommitResponse r;
  for (const auto& t : request.topics) {
    OffsetCommitResponse::Topic topic;
    topic.name = t.name;
    for (const auto& p : t.partitions) topic.partitions.push_back({p.partition_index, ToWire(code)});
    r.topics.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
