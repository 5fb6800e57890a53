#include "kafka/protocol/delete_topics.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  if (io.version() >= 6) {
    io.Array("topics", m.topics, [&](auto& t) {
      io.NullableString("name", t.name);
      io.UuidField("topic_id", t.topic_id);
      io.Tags();
    });
  } else {
    io.Array("topic_names", m.topic_names, StringElement(io));
  }
  io.Int32("timeout_ms", m.timeout_ms);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("responses", m.responses, [&](auto& r) {
    io.NullableString("name", r.name, /*nullable=*/v >= 6);
    if (v >= 6) io.UuidField("topic_id", r.topic_id);
    io.Int16("error_code", r.error_code);
    if (v >= 5) io.NullableString("error_message", r.error_message);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DeleteTopicsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(DeleteTopicsResponse, ResponseFields)

DeleteTopicsResponse ErrorResponse(const DeleteTopicsRequest& request, int16_t version,
                                   ErrorCode code) {
  DeleteTopicsResponse r;
  if (version >= 6) {
    for (const auto& t : request.topics) {
      r.responses.push_back({t.name, t.topic_id, ToWire(code), std::nullopt});
    }
  } else {
    for (const auto& name : request.topic_names) {
      r.responses.push_back({name, Uuid{}, ToWire(code), std::nullopt});
    }
  }
  return r;
}

}  // namespace mink::kafka
