#pragma once
// What the Iceberg REST catalog's parts share (rest_catalog.cc, rest_access.cc): JSON answers in
// the REST spec's error model and pages of lists (the request bodies are rest_requests.h's).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "http/http_server.h"
#include "lake/rest_requests.h"
#include "lake/table_metadata.h"
#include "metadata/state.h"

namespace mink::lake::rest {

int64_t NowMs();
http::ServerResponse JsonResponse(int status, const Json& body);
http::ServerResponse NoContent();
// {"error": {"message", "type", "code"}} (the spec's ErrorModel).
http::ServerResponse ErrorResponse(int code, const std::string& type, const std::string& message);
// The REST error for a failed operation: its HTTP code and Iceberg exception type. `missing` is
// the NotFound type the operation means (a namespace or a table).
http::ServerResponse ErrorFor(const Status& s, const std::string& missing = "NoSuchTableException");
std::vector<std::string> Split(const std::string& text, char separator);
std::string Dotted(const metadata::NamespaceName& space);

// One page of a list (the spec's pageToken and pageSize) over items sorted by `keys`: all of
// them when the request has no pageToken; else at most pageSize (default kDefaultPageSize, at
// most kMaxPageSize) after the item the token names ("" the first page). `next` is the next
// page's token, null after the last. InvalidArgument for a malformed token or size.
struct Page {
  size_t begin = 0;
  size_t end = 0;
  Json next;
};
inline constexpr size_t kDefaultPageSize = 100;
inline constexpr size_t kMaxPageSize = 1000;
Result<Page> PageOf(const http::ServerRequest& request, const std::vector<std::string>& keys);

}  // namespace mink::lake::rest
