#include "kafka/protocol/offset_fetch.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class T>
void RequestTopic(IO& io, T& t) {
  io.String("name", t.name);
  io.Array("partition_indexes", t.partition_indexes, Int32Element(io));
  io.Tags();
}

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  auto topic = [&](auto& t) { RequestTopic(io, t); };
  if (v <= 7) {
    io.String("group_id", m.group_id);
    io.NullableArray("topics", m.topics, topic, /*nullable=*/v >= 2);
  } else {
    io.Array("groups", m.groups, [&](auto& g) {
      io.String("group_id", g.group_id);
      io.NullableArray("topics", g.topics, topic);
      io.Tags();
    });
  }
  if (v >= 7) io.Bool("require_stable", m.require_stable);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  auto topic = [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int64("committed_offset", p.committed_offset);
      if (v >= 5) io.Int32("committed_leader_epoch", p.committed_leader_epoch);
      io.NullableString("metadata", p.metadata);
      io.Int16("error_code", p.error_code);
      io.Tags();
    });
    io.Tags();
  };
  if (v >= 3) io.Int32("throttle_time_ms", m.throttle_time_ms);
  if (v <= 7) {
    io.Array("topics", m.topics, topic);
    if (v >= 2) io.Int16("error_code", m.error_code);
  } else {
    io.Array("groups", m.groups, [&](auto& g) {
      io.String("group_id", g.group_id);
      io.Array("topics", g.topics, topic);
      io.Int16("error_code", g.error_code);
      io.Tags();
    });
  }
  io.Tags();
}

OffsetFetchResponse::Topic ErrorTopic(const OffsetFetchRequest::Topic& t, ErrorCode code) {
  OffsetFetchResponse::Topic topic;
  topic.name = t.name;
  for (int32_t p : t.partition_indexes) {
    OffsetFetchResponse::Partition partition;
    partition.partition_index = p;
    partition.error_code = ToWire(code);
    topic.partitions.push_back(std::move(partition));
  }
  return topic;
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(OffsetFetchRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(OffsetFetchResponse, ResponseFields)

OffsetFetchResponse ErrorResponse(const OffsetFetchRequest& request, int16_t version,
                                  ErrorCode code) {
  OffsetFetchResponse r;
  if (version <= 7) {
    r.error_code = ToWire(code);
    if (request.topics) {
      for (const auto& t : *request.topics) r.topics.push_back(ErrorTopic(t, code));
    }
    return r;
  }
  for (const auto& g : request.groups) {
    OffsetFetchResponse::Group group;
    group.group_id = g.group_id;
    group.error_code = ToWire(code);
    r.groups.push_back(std::move(group));
  }
  return r;
}

}  // namespace mink::kafka
