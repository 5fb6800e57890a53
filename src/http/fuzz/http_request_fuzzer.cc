// libFuzzer target: what a stranger's bytes go through before any handler sees them on the HTTP
// API's listener: the request line and headers (ParseRequestHead), the target's path and query
// (SplitTarget), a form body (ParseForm). Parsing must refuse or succeed, never crash; what
// parses must be sane (a method, lower-case header names).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

#include "http/server_internal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t end = input.find("\r\n\r\n");
  const std::string_view head = end == std::string_view::npos ? input : input.substr(0, end + 4);
  auto parsed = mink::http::internal::ParseRequestHead(head);
  if (parsed.ok()) {
    if (parsed->method.empty()) std::abort();
    for (const auto& [name, value] : parsed->headers) {
      for (char c : name) {
        if (c >= 'A' && c <= 'Z') std::abort();  // names are lower-cased
      }
    }
    std::string path;
    std::map<std::string, std::string> query;
    (void)mink::http::internal::SplitTarget(parsed->target, &path, &query);
  }
  const std::string_view body = end == std::string_view::npos ? std::string_view() : input.substr(end + 4);
  (void)mink::http::internal::ParseQuery(body);  // what ParseForm does with a form body
  (void)mink::http::internal::PercentDecode(input, true);
  return 0;
}
