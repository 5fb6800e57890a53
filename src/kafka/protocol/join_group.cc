#include "kafka/protocol/join_group.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.String("group_id", m.group_id);
  io.Int32("session_timeout_ms", m.session_timeout_ms);
  if (v >= 1) io.Int32("rebalance_timeout_ms", m.rebalance_timeout_ms);
  io.String("member_id", m.member_id);
  if (v >= 5) io.NullableString("group_instance_id", m.group_instance_id);
  io.String("protocol_type", m.protocol_type);
  io.Array("protocols", m.protocols, [&](auto& p) {
    io.String("name", p.name);
    io.Bytes("metadata", p.metadata);
    io.Tags();
  });
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 2) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Int32("generation_id", m.generation_id);
  io.String("protocol_name", m.protocol_name);
  io.String("leader", m.leader);
  io.String("member_id", m.member_id);
  io.Array("members", m.members, [&](auto& e) {
    io.String("member_id", e.member_id);
    if (v >= 5) io.NullableString("group_instance_id", e.group_instance_id);
    io.Bytes("metadata", e.metadata);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(JoinGroupRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(JoinGroupResponse, ResponseFields)

JoinGroupResponse ErrorResponse(const JoinGroupRequest& request, int16_t /*version*/,
                                ErrorCode code) {
  JoinGroupResponse r;
  r.error_code = ToWire(code);
  r.member_id = request.member_id;
  return r;
}

}  // namespace mink::kafka
