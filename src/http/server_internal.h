#pragma once
// What both HTTP servers share (HttpServer over cpp-httplib, ApiServer over asio): the listen
// address, header and query lookups, percent-decoding and query strings. Private to the http
// library (its tests include it).

#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "base/result.h"

namespace mink::http::internal {

// ASCII lowercase.
std::string Lower(std::string s);

// The value under `key`, "" when absent.
std::string FindOr(const std::map<std::string, std::string>& map, const std::string& key);

// host:port, with [v6]:port allowed and an empty host meaning 0.0.0.0. InvalidArgument when
// there is no port or it is not 0..65535.
Result<std::pair<std::string, int>> SplitListen(const std::string& listen);

// %XX sequences decoded (a malformed one stays as written); `plus_is_space` for query strings.
std::string PercentDecode(std::string_view text, bool plus_is_space);

// a=1&b=x%20y: decoded names and values, the last value of a repeated name; a name without
// '=' has the value "".
std::map<std::string, std::string> ParseQuery(std::string_view query);

// A request's line and headers (HTTP/1.x).
struct RequestHead {
  std::string method;
  std::string target;
  int minor_version = 1;                       // HTTP/1.<minor>
  std::map<std::string, std::string> headers;  // names in lowercase; repeats joined by ", "
};

// The request line and headers of `head` (which ends at the blank line). InvalidArgument when
// malformed: a bad request line, a version other than HTTP/1.x, a header without a name or
// folded over lines, two different Content-Lengths.
Result<RequestHead> ParseRequestHead(std::string_view head);

// A request target's percent-decoded path and decoded query: the origin form (/a/b?q=1), or
// the absolute form (http://host/a/b?q=1) without its scheme and authority. InvalidArgument for
// any other form.
Status SplitTarget(std::string_view target, std::string* path,
                   std::map<std::string, std::string>* query);

// Whether a comma-separated header value (Connection, Upgrade) has `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token);

}  // namespace mink::http::internal
