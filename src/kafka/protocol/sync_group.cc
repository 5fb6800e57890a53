#include "kafka/protocol/sync_group.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.String("group_id", m.group_id);
  io.Int32("generation_id", m.generation_id);
  io.String("member_id", m.member_id);
  if (io.version() >= 3) io.NullableString("group_instance_id", m.group_instance_id);
  io.Array("assignments", m.assignments, [&](auto& a) {
    io.String("member_id", a.member_id);
    io.Bytes("assignment", a.assignment);
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  if (io.version() >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Bytes("assignment", m.assignment);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(SyncGroupRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(SyncGroupResponse, ResponseFields)

SyncGroupResponse ErrorResponse(const SyncGroupRequest&, int16_t, ErrorCode code) {
  SyncGroupResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
