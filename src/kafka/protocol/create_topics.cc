#include "kafka/protocol/create_topics.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Int32("num_partitions", t.num_partitions);
    io.Int16("replication_factor", t.replication_factor);
    io.Array("assignments", t.assignments, [&](auto& a) {
      io.Int32("partition_index", a.partition_index);
      io.Array("broker_ids", a.broker_ids, Int32Element(io));
      io.Tags();
    });
    io.Array("configs", t.configs, [&](auto& c) {
      io.String("name", c.name);
      io.NullableString("value", c.value);
      io.Tags();
    });
    io.Tags();
  });
  io.Int32("timeout_ms", m.timeout_ms);
  if (io.version() >= 1) io.Bool("validate_only", m.validate_only);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 2) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    if (v >= 7) io.UuidField("topic_id", t.topic_id);
    io.Int16("error_code", t.error_code);
    if (v >= 1) io.NullableString("error_message", t.error_message);
    if (v >= 5) {
      io.Int32("num_partitions", t.num_partitions);
      io.Int16("replication_factor", t.replication_factor);
      io.NullableArray("configs", t.configs, [&](auto& c) {
        io.String("name", c.name);
        io.NullableString("value", c.value);
        io.Bool("read_only", c.read_only);
        io.Int8("config_source", c.config_source);
        io.Bool("is_sensitive", c.is_sensitive);
        io.Tags();
      });
    }
    io.Tags({{0, t.topic_config_error_code != 0, [&](auto& s) {
                s.Int16("topic_config_error_code", t.topic_config_error_code);
              }}});
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(CreateTopicsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(CreateTopicsResponse, ResponseFields)

CreateTopicsResponse ErrorResponse(const CreateTopicsRequest& request, int16_t,
                                   ErrorCode code) {
  CreateTopicsResponse r;
  for (const auto& t : request.topics) {
    CreateTopicsResponse::Topic topic;
    topic.name = t.name;
    topic.error_code = ToWire(code);
    r.topics.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
