#include "kafka/protocol/create_partitions.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Int32("count", t.count);
    io.NullableArray("assignments", t.assignments, [&](auto& a) {
      io.Array("broker_ids", a.broker_ids, Int32Element(io));
      io.Tags();
    });
    io.Tags();
  });
  io.Int32("timeout_ms", m.timeout_ms);
  io.Bool("validate_only", m.validate_only);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("results", m.results, [&](auto& r) {
    io.String("name", r.name);
    io.Int16("error_code", r.error_code);
    io.NullableString("error_message", r.error_message);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(CreatePartitionsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(CreatePartitionsResponse, ResponseFields)

CreatePartitionsResponse ErrorResponse(const CreatePartitionsRequest& request, int16_t,
                                       ErrorCode code) {
  CreatePartitionsResponse r;
  for (const auto& t : request.topics) r.results.push_back({t.name, ToWire(code), std::nullopt});
  return r;
}

}  // namespace mink::kafka
