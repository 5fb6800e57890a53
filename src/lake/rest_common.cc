#include "lake/rest_common.h"

#include <algorithm>
#include <chrono>

#include "base/strings.h"

namespace mink::lake::rest {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

http::ServerResponse JsonResponse(int status, const Json& body) {
  return http::ServerResponse{status, "application/json", body.dump(), {}};
}

http::ServerResponse NoContent() { return http::ServerResponse{204, "application/json", "", {}}; }

http::ServerResponse ErrorResponse(int code, const std::string& type, const std::string& message) {
  return JsonResponse(code, Json{{"error", {{"message", message}, {"type", type}, {"code", code}}}});
}

http::ServerResponse ErrorFor(const Status& s, const std::string& missing) {
  switch (s.code()) {
    case StatusCode::kNotFound:
      return ErrorResponse(404, s.message().rfind("namespace", 0) == 0 ? "NoSuchNamespaceException" : missing,
                           s.message());
    case StatusCode::kAlreadyExists:
      return ErrorResponse(409, "AlreadyExistsException", s.message());
    case StatusCode::kFailedPrecondition:
    case StatusCode::kAborted:
      return ErrorResponse(409, "CommitFailedException", s.message());
    case StatusCode::kInvalidArgument:
      return ErrorResponse(400, "BadRequestException", s.message());
    case StatusCode::kPermissionDenied:
      return ErrorResponse(403, "ForbiddenException", s.message());
    case StatusCode::kUnimplemented:
      return ErrorResponse(406, "UnsupportedOperationException", s.message());
    case StatusCode::kUnavailable:
      return ErrorResponse(503, "ServiceUnavailableException", s.message());
    default:
      return ErrorResponse(500, "ServerError", s.message());
  }
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

std::string Dotted(const metadata::NamespaceName& space) {
  std::string out;
  for (const auto& level : space) out += (out.empty() ? "" : ".") + level;
  return out;
}

Result<Page> PageOf(const http::ServerRequest& request, const std::vector<std::string>& keys) {
  Page page{0, keys.size(), nullptr};
  if (request.query.count("pageToken") == 0) return page;
  size_t size = kDefaultPageSize;
  if (const std::string given = request.Query("pageSize"); !given.empty()) {
    auto n = ParseUint64(given);
    if (!n.ok() || *n < 1) return InvalidArgumentError("pageSize is a whole number of at least 1, not '" + given + "'");
    size = static_cast<size_t>(std::min<uint64_t>(*n, kMaxPageSize));
  }
  if (const std::string token = request.Query("pageToken"); !token.empty()) {
    auto after = HexDecode(token);
    if (!after.ok()) return InvalidArgumentError("pageToken '" + token + "' is not one this catalog gave");
    page.begin = static_cast<size_t>(std::upper_bound(keys.begin(), keys.end(), *after) - keys.begin());
  }
  page.end = std::min(keys.size(), page.begin + size);
  if (page.end < keys.size()) page.next = HexEncode(keys[page.end - 1]);
  return page;
}

}  // namespace mink::lake::rest
