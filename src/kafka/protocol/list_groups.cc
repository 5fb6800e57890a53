#include "kafka/protocol/list_groups.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  if (io.version() >= 4) io.Array("states_filter", m.states_filter, StringElement(io));
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Array("groups", m.groups, [&](auto& g) {
    io.String("group_id", g.group_id);
    io.String("protocol_type", g.protocol_type);
    if (v >= 4) io.String("group_state", g.group_state);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(ListGroupsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(ListGroupsResponse, ResponseFields)

ListGroupsResponse ErrorResponse(const ListGroupsRequest&, int16_t, ErrorCode code) {
  ListGroupsResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
