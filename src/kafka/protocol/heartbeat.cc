#include "kafka/protocol/heartbeat.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.String("group_id", m.group_id);
  io.Int32("generation_id", m.generation_id);
  io.String("member_id", m.member_id);
  if (io.version() >= 3) io.NullableString("group_instance_id", m.group_instance_id);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  if (io.version() >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(HeartbeatRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(HeartbeatResponse, ResponseFields)

HeartbeatResponse ErrorResponse(const HeartbeatRequest&, int16_t, ErrorCode code) {
  HeartbeatResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
