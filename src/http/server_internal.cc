#include "http/server_internal.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace mink::http::internal {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string FindOr(const std::map<std::string, std::string>& map, const std::string& key) {
  auto it = map.find(key);
  return it == map.end() ? std::string() : it->second;
}

Result<std::pair<std::string, int>> SplitListen(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon + 1 == listen.size()) {
    return InvalidArgumentError("listen address '" + listen + "' is not host:port");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  try {
    size_t used = 0;
    const int port = std::stoi(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port < 0 || port > 65535)
      throw std::out_of_range("port");
    return std::make_pair(host.empty() ? std::string("0.0.0.0") : host, port);
  } catch (const std::exception&) {
    return InvalidArgumentError("listen address '" + listen + "' has no valid port");
  }
}

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = HexDigit(text[i + 1]), lo = HexDigit(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string name = PercentDecode(pair.substr(0, eq), true);
    out[std::move(name)] =
        eq == std::string_view::npos ? std::string() : PercentDecode(pair.substr(eq + 1), true);
  }
  return out;
}

Result<RequestHead> ParseRequestHead(std::string_view head) {
  RequestHead out;
  bool first = true;
  while (!head.empty()) {
    const size_t eol = head.find('\n');
    std::string_view line = head.substr(0, eol);
    head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (first) {
      first = false;
      const size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
      if (sp1 == std::string_view::npos || sp1 == sp2 || sp1 == 0 || sp2 == sp1 + 1) {
        return InvalidArgumentError("malformed request line");
      }
      const std::string_view version = line.substr(sp2 + 1);
      if (version.size() != 8 || version.substr(0, 7) != "HTTP/1." ||
          !std::isdigit(static_cast<unsigned char>(version[7]))) {
        return InvalidArgumentError("not an HTTP/1.x request");
      }
      out.method = std::string(line.substr(0, sp1));
      out.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
      out.minor_version = version[7] - '0';
      continue;
    }
    if (line.empty()) break;  // the blank line
    if (line.front() == ' ' || line.front() == '\t')
      return InvalidArgumentError("a header folded over lines");
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      return InvalidArgumentError("a header line without a name");
    std::string name = Lower(std::string(Trim(line.substr(0, colon))));
    std::string value(Trim(line.substr(colon + 1)));
    auto [it, inserted] = out.headers.emplace(name, value);
    if (inserted) continue;
    if (name == "content-length") {
      if (it->second != value) return InvalidArgumentError("two different Content-Length headers");
      continue;
    }
    it->second += ", " + value;
  }
  if (first) return InvalidArgumentError("an empty request");
  return out;
}

Status SplitTarget(std::string_view target, std::string* path,
                   std::map<std::string, std::string>* query) {
  if (target.substr(0, 7) == "http://" || target.substr(0, 8) == "https://") {
    const size_t slash = target.find('/', target.find("//") + 2);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  if (target.empty() || target.front() != '/')
    return InvalidArgumentError("a request target must be a path");
  const size_t mark = target.find('?');
  *path = PercentDecode(target.substr(0, mark), false);
  query->clear();
  if (mark != std::string_view::npos) *query = ParseQuery(target.substr(mark + 1));
  return Status::Ok();
}

bool HasToken(std::string_view value, std::string_view token) {
  while (true) {
    const size_t comma = value.find(',');
    const std::string_view item = Trim(value.substr(0, comma));
    if (item.size() == token.size() &&
        std::equal(item.begin(), item.end(), token.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return true;
    }
    if (comma == std::string_view::npos) return false;
    value.remove_prefix(comma + 1);
  }
}

}  // namespace mink::http::internal
