#include "kafka/protocol/metadata.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.NullableArray(
      "topics", m.topics,
      [&](auto& t) {
        io.String("name", t.name);
        io.Tags();
      },
      /*nullable=*/v >= 1);
  if (v >= 4) io.Bool("allow_auto_topic_creation", m.allow_auto_topic_creation);
  if (v >= 8) {
    io.Bool("include_cluster_authorized_operations", m.include_cluster_authorized_operations);
    io.Bool("include_topic_authorized_operations", m.include_topic_authorized_operations);
  }
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 3) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("brokers", m.brokers, [&](auto& b) {
    io.Int32("node_id", b.node_id);
    io.String("host", b.host);
    io.Int32("port", b.port);
    if (v >= 1) io.NullableString("rack", b.rack);
    io.Tags();
  });
  if (v >= 2) io.NullableString("cluster_id", m.cluster_id);
  if (v >= 1) io.Int32("controller_id", m.controller_id);
  io.Array("topics", m.topics, [&](auto& t) {
    io.Int16("error_code", t.error_code);
    io.String("name", t.name);
    if (v >= 1) io.Bool("is_internal", t.is_internal);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int16("error_code", p.error_code);
      io.Int32("partition_index", p.partition_index);
      io.Int32("leader_id", p.leader_id);
      if (v >= 7) io.Int32("leader_epoch", p.leader_epoch);
      io.Array("replica_nodes", p.replica_nodes, Int32Element(io));
      io.Array("isr_nodes", p.isr_nodes, Int32Element(io));
      if (v >= 5) io.Array("offline_replicas", p.offline_replicas, Int32Element(io));
      io.Tags();
    });
    if (v >= 8) io.Int32("topic_authorized_operations", t.topic_authorized_operations);
    io.Tags();
  });
  if (v >= 8) io.Int32("cluster_authorized_operations", m.cluster_authorized_operations);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(MetadataRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(MetadataResponse, ResponseFields)

MetadataResponse ErrorResponse(const MetadataRequest& request, int16_t /*version*/,
                               ErrorCode code) {
  MetadataResponse r;
  if (request.topics) {
    for (const auto& t : *request.topics) {
      MetadataResponse::Topic topic;
      topic.error_code = ToWire(code);
      topic.name = t.name;
      r.topics.push_back(std::move(topic));
    }
  }
  return r;
}

}  // namespace mink::kafka
