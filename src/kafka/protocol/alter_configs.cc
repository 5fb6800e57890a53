#include "kafka/protocol/alter_configs.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("resources", m.resources, [&](auto& r) {
    io.Int8("resource_type", r.resource_type);
    io.String("resource_name", r.resource_name);
    io.Array("configs", r.configs, [&](auto& c) {
      io.String("name", c.name);
      io.NullableString("value", c.value);
      io.Tags();
    });
    io.Tags();
  });
  io.Bool("validate_only", m.validate_only);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("responses", m.responses, [&](auto& r) {
    io.Int16("error_code", r.error_code);
    io.NullableString("error_message", r.error_message);
    io.Int8("resource_type", r.resource_type);
    io.String("resource_name", r.resource_name);
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(AlterConfigsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(AlterConfigsResponse, ResponseFields)

AlterConfigsResponse ErrorResponse(const AlterConfigsRequest& request, int16_t,
                                   ErrorCode code) {
  AlterConfigsResponse r;
  for (const auto& res : request.resources) {
    r.responses.push_back({ToWire(code), std::nullopt, res.resource_type, res.resource_name});
  }
  return r;
}

}  // namespace mink::kafka
