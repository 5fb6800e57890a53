#include "kafka/protocol/delete_groups.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("groups_names", m.groups_names, StringElement(io));
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("results", m.results, [&](auto& r) {
    io.String("group_id", r.group_id);
    io.Int16("error_code", r.error_code);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DeleteGroupsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(DeleteGroupsResponse, ResponseFields)

DeleteGroupsResponse ErrorResponse(const DeleteGroupsRequest& request, int16_t, ErrorCode code) {
  DeleteGroupsResponse r;
  for (const auto& g : request.groups_names) r.results.push_back({g, ToWire(code)});
  return r;
}

}  // namespace mink::kafka
