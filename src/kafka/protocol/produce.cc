#include "kafka/protocol/produce.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 3) io.NullableString("transactional_id", m.transactional_id);
  io.Int16("acks", m.acks);
  io.Int32("timeout_ms", m.timeout_ms);
  io.Array("topic_data", m.topic_data, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partition_data", t.partition_data, [&](auto& p) {
      io.Int32("index", p.index);
      io.Records("records", p.records);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.Array("responses", m.responses, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partition_responses", t.partition_responses, [&](auto& p) {
      io.Int32("index", p.index);
      io.Int16("error_code", p.error_code);
      io.Int64("base_offset", p.base_offset);
      if (v >= 2) io.Int64("log_append_time_ms", p.log_append_time_ms);
      if (v >= 5) io.Int64("log_start_offset", p.log_start_offset);
      io.Tags();
    });
    io.Tags();
  });
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(ProduceRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(ProduceResponse, ResponseFields)

ProduceResponse ErrorResponse(const ProduceRequest& request, int16_t /*version*/,
                              ErrorCode code) {
  ProduceResponse r;
  for (const auto& t : request.topic_data) {
    ProduceResponse::Topic topic;
    topic.name = t.name;
    for (const auto& p : t.partition_data) {
      ProduceResponse::Partition partition;
      partition.index = p.index;
      partition.error_code = ToWire(code);
      topic.partition_responses.push_back(partition);
    }
    r.responses.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
