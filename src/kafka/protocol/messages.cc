#include "kafka/protocol/messages.h"

#include <limits>

#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

template <class Variant, class M>
Result<Variant> DecodeAs(int16_t version, std::string_view body) {
  auto decoded = DecodeBody<M>(version, body);
  if (!decoded.ok()) return decoded.status();
  return Variant(std::move(decoded).value());
}

Status UnknownKey(int16_t api_key) {
  return InvalidArgumentError("unknown api key " + std::to_string(api_key));
}

template <class Variant>
Status EncodeVariant(const Variant& message, int16_t version, std::string* out,
                     std::vector<Splice>* splices = nullptr) {
  return std::visit(
      [&](const auto& m) -> Status {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, std::monostate>) {
          return InvalidArgumentError("cannot encode an empty message");
        } else {
          return EncodeBody(m, version, out, splices);
        }
      },
      message);
}

template <class Variant>
int16_t KeyOfVariant(const Variant& message) {
  return std::visit(
      [](const auto& m) -> int16_t {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, std::monostate>) {
          return -1;
        } else {
          return static_cast<int16_t>(M::kApiKey);
        }
      },
      message);
}

void PatchFrameSize(std::string* out, size_t start) {
  StoreBe32(out->data() + start, static_cast<uint32_t>(out->size() - start - 4));
}

}  // namespace

int16_t ApiKeyOf(const Request& request) { return KeyOfVariant(request); }
int16_t ApiKeyOf(const Response& response) { return KeyOfVariant(response); }

Result<Request> DecodeRequest(int16_t api_key, int16_t version, std::string_view body) {
  switch (static_cast<ApiKey>(api_key)) {
#define MINK_KAFKA_CASE(Api) \
  case Api##Request::kApiKey: \
    return DecodeAs<Request, Api##Request>(version, body);
    MINK_KAFKA_FOR_EACH_API(MINK_KAFKA_CASE)
#undef MINK_KAFKA_CASE
  }
  return UnknownKey(api_key);
}

Result<Response> DecodeResponse(int16_t api_key, int16_t version, std::string_view body) {
  switch (static_cast<ApiKey>(api_key)) {
#define MINK_KAFKA_CASE(Api)   \
  case Api##Response::kApiKey: \
    return DecodeAs<Response, Api##Response>(version, body);
    MINK_KAFKA_FOR_EACH_API(MINK_KAFKA_CASE)
#undef MINK_KAFKA_CASE
  }
  return UnknownKey(api_key);
}

Status EncodeRequest(const Request& request, int16_t version, std::string* out) {
  return EncodeVariant(request, version, out);
}

Status EncodeResponse(const Response& response, int16_t version, std::string* out) {
  return EncodeVariant(response, version, out);
}

Response ErrorResponseFor(const Request& request, int16_t version, ErrorCode code) {
  return std::visit(
      [&](const auto& m) -> Response {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, std::monostate>) {
          return std::monostate{};
        } else if constexpr (std::is_same_v<M, ApiVersionsRequest>) {
          ApiVersionsResponse r;
          r.error_code = ToWire(code);
          return r;
        } else {
          return ErrorResponse(m, version, code);
        }
      },
      request);
}

Result<ParsedRequest> ParseRequestFrame(std::string_view payload) {
  size_t header_size = 0;
  auto header = DecodeRequestHeader(payload, &header_size);
  if (!header.ok()) return header.status();
  auto body = DecodeRequest(header->api_key, header->api_version, payload.substr(header_size));
  if (!body.ok()) return body.status();
  return ParsedRequest{std::move(header).value(), std::move(body).value()};
}

Status AppendRequestFrame(const RequestHeader& header, const Request& body, std::string* out) {
  if (ApiKeyOf(body) != header.api_key) {
    return InvalidArgumentError("request header api key does not match the body");
  }
  const size_t start = out->size();
  AppendBe32(out, 0);
  Status s = EncodeRequestHeader(header, out);
  if (s.ok()) s = EncodeRequest(body, header.api_version, out);
  if (!s.ok()) {
    out->resize(start);
    return s;
  }
  PatchFrameSize(out, start);
  return Status::Ok();
}

Status AppendResponseFrame(int32_t correlation_id, int16_t version, const Response& body,
                           std::string* out) {
  const int16_t key = ApiKeyOf(body);
  if (key < 0) return InvalidArgumentError("cannot encode an empty response");
  const size_t start = out->size();
  AppendBe32(out, 0);
  EncodeResponseHeader(static_cast<ApiKey>(key), version, correlation_id, out);
  Status s = EncodeResponse(body, version, out);
  if (!s.ok()) {
    out->resize(start);
    return s;
  }
  PatchFrameSize(out, start);
  return Status::Ok();
}

Status AppendResponseFrame(int32_t correlation_id, int16_t version, const Response& body,
                           std::string* out, std::vector<Splice>* splices) {
  const int16_t key = ApiKeyOf(body);
  if (key < 0) return InvalidArgumentError("cannot encode an empty response");
  const size_t start = out->size();
  const size_t first_splice = splices->size();
  AppendBe32(out, 0);
  EncodeResponseHeader(static_cast<ApiKey>(key), version, correlation_id, out);
  Status s = EncodeVariant(body, version, out, splices);
  uint64_t size = out->size() - start - 4;
  for (size_t i = first_splice; i < splices->size(); ++i) size += (*splices)[i].bytes.size();
  if (s.ok() && size > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    s = InvalidArgumentError("response frame of " + std::to_string(size) + " bytes is too large");
  }
  if (!s.ok()) {
    out->resize(start);
    splices->resize(first_splice);
    return s;
  }
  StoreBe32(out->data() + start, static_cast<uint32_t>(size));
  return Status::Ok();
}

Result<ParsedResponse> ParseResponseFrame(int16_t api_key, int16_t version,
                                          std::string_view payload) {
  const ApiInfo* api = FindApi(api_key);
  if (api == nullptr) return UnknownKey(api_key);
  size_t header_size = 0;
  auto correlation_id = DecodeResponseHeader(api->key, version, payload, &header_size);
  if (!correlation_id.ok()) return correlation_id.status();
  auto body = DecodeResponse(api_key, version, payload.substr(header_size));
  if (!body.ok()) return body.status();
  return ParsedResponse{*correlation_id, std::move(body).value()};
}

}  // namespace mink::kafka
