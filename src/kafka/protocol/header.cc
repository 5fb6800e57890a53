#include "kafka/protocol/header.h"

#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

MessageContext HeaderContext(const char* name) {
  MessageContext c;
  c.name = name;
  c.kind = MessageContext::Kind::kOther;
  return c;
}

}  // namespace

Result<RequestHeader> DecodeRequestHeader(std::string_view payload, size_t* header_size) {
  Reader r(payload, HeaderContext("request header"));
  RequestHeader h;
  r.Int16("api_key", h.api_key);
  r.Int16("api_version", h.api_version);
  r.Int32("correlation_id", h.correlation_id);
  r.NullableString("client_id", h.client_id);  // never compact, even in header v2
  if (!r.ok()) return r.status();
  if (h.api_version < 0) {
    r.Fail("api_version", "negative version " + std::to_string(h.api_version));
    return r.status();
  }
  const ApiInfo* api = FindApi(h.api_key);
  if (api != nullptr && IsFlexibleVersion(api->key, h.api_version)) {
    // Header v2: a tagged section, read with compact encoding.
    Reader tags(payload.substr(r.position()), [] {
      MessageContext c = HeaderContext("request header");
      c.flexible = true;
      return c;
    }());
    tags.Tags();
    if (!tags.ok()) return tags.status();
    *header_size = r.position() + tags.position();
  } else {
    *header_size = r.position();
  }
  return h;
}

Status EncodeRequestHeader(const RequestHeader& header, std::string* out) {
  const ApiInfo* api = FindApi(header.api_key);
  if (api == nullptr) {
    return InvalidArgumentError("cannot encode a request header for unknown api key " +
                                std::to_string(header.api_key));
  }
  Writer w(out, HeaderContext("request header"));
  w.Int16("api_key", header.api_key);
  w.Int16("api_version", header.api_version);
  w.Int32("correlation_id", header.correlation_id);
  w.NullableString("client_id", header.client_id);
  if (!w.ok()) return w.status();
  if (IsFlexibleVersion(api->key, header.api_version)) out->push_back(0);  // no tags
  return Status::Ok();
}

void EncodeResponseHeader(ApiKey key, int16_t version, int32_t correlation_id, std::string* out) {
  AppendBe32(out, static_cast<uint32_t>(correlation_id));
  if (ResponseHeaderVersion(key, version) >= 1) out->push_back(0);  // no tags
}

Result<int32_t> DecodeResponseHeader(ApiKey key, int16_t version, std::string_view payload,
                                     size_t* header_size) {
  MessageContext c = HeaderContext("response header");
  c.flexible = ResponseHeaderVersion(key, version) >= 1;
  Reader r(payload, c);
  int32_t correlation_id = 0;
  r.Int32("correlation_id", correlation_id);
  r.Tags();
  if (!r.ok()) return r.status();
  *header_size = r.position();
  return correlation_id;
}

}  // namespace mink::kafka
