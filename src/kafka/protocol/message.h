#pragma once
// What every Kafka message struct has, and the helpers to decode/encode one message body.
//
// Each API has a header (produce.h, fetch.h, ...) with plain structs <Api>Request and
// <Api>Response. Fields carry Kafka's defaults, which is what a decoder leaves in fields absent
// from the version being read. Each struct has
//   Status Decode(Reader&)        reads the body at reader.version()
//   Status Encode(Writer&) const  writes it at writer.version()
// and both run the same field list (see codec_internal.h).

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "kafka/protocol/api.h"
#include "kafka/protocol/errors.h"
#include "kafka/protocol/wire.h"

// Declares the members every message struct has.
#define MINK_KAFKA_MESSAGE(api_key, is_request)          \
  static constexpr ::mink::kafka::ApiKey kApiKey = api_key; \
  static constexpr bool kIsRequest = is_request;           \
  ::mink::Status Decode(::mink::kafka::Reader& reader);   \
  ::mink::Status Encode(::mink::kafka::Writer& writer) const

namespace mink::kafka {

// The context a Reader/Writer needs for `version` of an API's request or response body.
MessageContext BodyContext(ApiKey key, int16_t version, bool request);

// Checks that `version` is within the API's supported range.
Status CheckVersion(ApiKey key, int16_t version, bool request);

// Decodes one whole message body (every byte must be used).
template <class M>
Result<M> DecodeBody(int16_t version, std::string_view body) {
  MINK_RETURN_IF_ERROR(CheckVersion(M::kApiKey, version, M::kIsRequest));
  Reader reader(body, BodyContext(M::kApiKey, version, M::kIsRequest));
  M message;
  MINK_RETURN_IF_ERROR(message.Decode(reader));
  reader.ExpectEnd();
  if (!reader.ok()) return reader.status();
  return message;
}

// Appends the body of `message` at `version` to `out`.
template <class M>
Status EncodeBody(const M& message, int16_t version, std::string* out) {
  MINK_RETURN_IF_ERROR(CheckVersion(M::kApiKey, version, M::kIsRequest));
  Writer writer(out, BodyContext(M::kApiKey, version, M::kIsRequest));
  return message.Encode(writer);
}

// As above, with large RECORDS fields left out of `out` and noted in `splices` (see Splice).
template <class M>
Status EncodeBody(const M& message, int16_t version, std::string* out,
                  std::vector<Splice>* splices) {
  MINK_RETURN_IF_ERROR(CheckVersion(M::kApiKey, version, M::kIsRequest));
  Writer writer(out, BodyContext(M::kApiKey, version, M::kIsRequest));
  writer.set_splices(splices);
  return message.Encode(writer);
}

template <class M>
Result<std::string> EncodeBody(const M& message, int16_t version) {
  std::string out;
  MINK_RETURN_IF_ERROR(EncodeBody(message, version, &out));
  return out;
}

}  // namespace mink::kafka
