#pragma once
// Request headers (v1 for non-flexible API versions, v2 for flexible ones) and response headers
// (v0, or v1 for flexible versions; ApiVersions responses always use v0).
// client_id stays a classic int16-length nullable string even in header v2.

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "kafka/protocol/api.h"

namespace mink::kafka {

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;
};

// Parses the header at the start of a frame payload (the bytes after the int32 size) and sets
// `*header_size` to its length; the body follows. The header version comes from the API's first
// flexible version, also for versions beyond our supported range (so that the server can still
// answer them). For an unknown api_key it reads header v1 (the tagged section, if any, is then
// left in the body): enough to log and close the connection.
Result<RequestHeader> DecodeRequestHeader(std::string_view payload, size_t* header_size);
// Appends the header; its version follows from api_key/api_version (which must be known).
Status EncodeRequestHeader(const RequestHeader& header, std::string* out);

// Appends a response header for `version` of `key`.
void EncodeResponseHeader(ApiKey key, int16_t version, int32_t correlation_id, std::string* out);
// Parses a response header; returns the correlation id.
Result<int32_t> DecodeResponseHeader(ApiKey key, int16_t version, std::string_view payload,
                                     size_t* header_size);

}  // namespace mink::kafka
