#include "kafka/protocol/describe_configs.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::StringElement;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("resources", m.resources, [&](auto& r) {
    io.Int8("resource_type", r.resource_type);
    io.String("resource_name", r.resource_name);
    io.NullableArray("configuration_keys", r.configuration_keys, StringElement(io));
    io.Tags();
  });
  if (io.version() >= 1) io.Bool("include_synonyms", m.include_synonyms);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("results", m.results, [&](auto& r) {
    io.Int16("error_code", r.error_code);
    io.NullableString("error_message", r.error_message);
    io.Int8("resource_type", r.resource_type);
    io.String("resource_name", r.resource_name);
    io.Array("configs", r.configs, [&](auto& c) {
      io.String("name", c.name);
      io.NullableString("value", c.value);
      io.Bool("read_only", c.read_only);
      if (v == 0) io.Bool("is_default", c.is_default);
      if (v >= 1) io.Int8("config_source", c.config_source);
      io.Bool("is_sensitive", c.is_sensitive);
      if (v >= 1) {
        io.Array("synonyms", c.synonyms, [&](auto& s) {
          io.String("name", s.name);
          io.NullableString("value", s.value);
          io.Int8("source", s.source);
          io.Tags();
        });
      }
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DescribeConfigsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(DescribeConfigsResponse, ResponseFields)

DescribeConfigsResponse ErrorResponse(const DescribeConfigsRequest& request, int16_t,
                                      ErrorCode code) {
  DescribeConfigsResponse r;
  for (const auto& res : request.resources) {
    DescribeConfigsResponse::ResourceResult result;
    result.error_code = ToWire(code);
    result.resource_type = res.resource_type;
    result.resource_name = res.resource_name;
    r.results.push_back(std::move(result));
  }
  return r;
}

}  // namespace mink::kafka
