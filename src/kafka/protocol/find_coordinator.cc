#include "kafka/protocol/find_coordinator.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v <= 3) io.String("key", m.key);
  if (v >= 1) io.Int8("key_type", m.key_type);
  if (v >= 4) io.Array("coordinator_keys", m.coordinator_keys, StringElement(io));
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  if (v <= 3) {
    io.Int16("error_code", m.error_code);
    if (v >= 1) io.NullableString("error_message", m.error_message);
    io.Int32("node_id", m.node_id);
    io.String("host", m.host);
    io.Int32("port", m.port);
  } else {
    io.Array("coordinators", m.coordinators, [&](auto& c) {
      io.String("key", c.key);
      io.Int32("node_id", c.node_id);
      io.String("host", c.host);
      io.Int32("port", c.port);
      io.Int16("error_code", c.error_code);
      io.NullableString("error_message", c.error_message);
      io.Tags();
    });
  }
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(FindCoordinatorRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(FindCoordinatorResponse, ResponseFields)

FindCoordinatorResponse ErrorResponse(const FindCoordinatorRequest& request, int16_t version,
                                      ErrorCode code) {
  FindCoordinatorResponse r;
  r.node_id = -1;
  if (version <= 3) {
    r.error_code = ToWire(code);
    return r;
  }
  for (const auto& key : request.coordinator_keys) {
    FindCoordinatorResponse::Coordinator c;
    c.key = key;
    c.node_id = -1;
    c.error_code = ToWire(code);
    r.coordinators.push_back(std::move(c));
  }
  return r;
}

}  // namespace mink::kafka
