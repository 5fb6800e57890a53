#include "kafka/protocol/describe_groups.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("groups", m.groups, StringElement(io));
  if (io.version() >= 3) io.Bool("include_authorized_operations", m.include_authorized_operations);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("groups", m.groups, [&](auto& g) {
    io.Int16("error_code", g.error_code);
    io.String("group_id", g.group_id);
    io.String("group_state", g.group_state);
    io.String("protocol_type", g.protocol_type);
    io.String("protocol_data", g.protocol_data);
    io.Array("members", g.members, [&](auto& e) {
      io.String("member_id", e.member_id);
      if (v >= 4) io.NullableString("group_instance_id", e.group_instance_id);
      io.String("client_id", e.client_id);
      io.String("client_host", e.client_host);
      io.Bytes("member_metadata", e.member_metadata);
      io.Bytes("member_assignment", e.member_assignment);
      io.Tags();
    });
    if (v >= 3) io.Int32("authorized_operations", g.authorized_operations);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DescribeGroupsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(DescribeGroupsResponse, ResponseFields)

DescribeGroupsResponse ErrorResponse(const DescribeGroupsRequest& request, int16_t,
                                     ErrorCode code) {
  DescribeGroupsResponse r;
  for (const auto& id : request.groups) {
    DescribeGroupsResponse::Group g;
    g.error_code = ToWire(code);
    g.group_id = id;
    r.groups.push_back(std::move(g));
  }
  return r;
}

}  // namespace mink::kafka
