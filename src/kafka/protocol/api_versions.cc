#include "kafka/protocol/api_versions.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  if (io.version() >= 3) {
    io.String("client_software_name", m.client_software_name);
    io.String("client_software_version", m.client_software_version);
  }
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int16("error_code", m.error_code);
  io.Array("api_keys", m.api_keys, [&](auto& k) {
    io.Int16("api_key", k.api_key);
    io.Int16("min_version", k.min_version);
    io.Int16("max_version", k.max_version);
    io.Tags();
  });
  if (io.version() >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Tags({
      {0, m.supported_features.has_value(),
       [&](auto& s) {
         s.NullableArray("supported_features", m.supported_features, [&](auto& f) {
           s.String("name", f.name);
           s.Int16("min_version", f.min_version);
           s.Int16("max_version", f.max_version);
           s.Tags();
         });
       }},
      {1, m.finalized_features_epoch != -1,
       [&](auto& s) { s.Int64("finalized_features_epoch", m.finalized_features_epoch); }},
      {2, m.finalized_features.has_value(),
       [&](auto& s) {
         s.NullableArray("finalized_features", m.finalized_features, [&](auto& f) {
           s.String("name", f.name);
           s.Int16("max_version_level", f.max_version_level);
           s.Int16("min_version_level", f.min_version_level);
           s.Tags();
         });
       }},
      {3, m.zk_migration_ready,
       [&](auto& s) { s.Bool("zk_migration_ready", m.zk_migration_ready); }},
  });
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(ApiVersionsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(ApiVersionsResponse, ResponseFields)

ApiVersionsResponse MakeApiVersionsResponse() {
  ApiVersionsResponse r;
  for (const ApiInfo& api : AllApis()) {
    if (!api.advertised) continue;
    r.api_keys.push_back({static_cast<int16_t>(api.key), api.min_version, api.max_version});
  }
  return r;
}

std::string EncodeUnsupportedApiVersionsBody() {
  ApiVersionsResponse r = MakeApiVersionsResponse();
  r.error_code = ToWire(ErrorCode::kUnsupportedVersion);
  std::string out;
  Status s = EncodeBody(r, 0, &out);
  (void)s;  // v0 of a table-built response always encodes
  return out;
}

}  // namespace mink::kafka
