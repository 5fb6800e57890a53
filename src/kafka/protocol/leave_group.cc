#include "kafka/protocol/leave_group.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.String("group_id", m.group_id);
  if (io.version() <= 2) {
    io.String("member_id", m.member_id);
  } else {
    io.Array("members", m.members, [&](auto& e) {
      io.String("member_id", e.member_id);
      io.NullableString("group_instance_id", e.group_instance_id);
      io.Tags();
    });
  }
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  if (v >= 3) {
    io.Array("members", m.members, [&](auto& e) {
      io.String("member_id", e.member_id);
      io.NullableString("group_instance_id", e.group_instance_id);
      io.Int16("error_code", e.error_code);
      io.Tags();
    });
  }
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(LeaveGroupRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(LeaveGroupResponse, ResponseFields)

LeaveGroupResponse ErrorResponse(const LeaveGroupRequest&, int16_t, ErrorCode code) {
  LeaveGroupResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
