#include "flight/protocol/types.h"

#include <cctype>

#include "base/strings.h"

namespace mink::flight {

FlightDescriptor FlightDescriptor::Path(std::vector<std::string> path) {
  FlightDescriptor d;
  d.type = Type::kPath;
  d.path = std::move(path);
  return d;
}

FlightDescriptor FlightDescriptor::Command(std::string cmd) {
  FlightDescriptor d;
  d.type = Type::kCmd;
  d.cmd = std::move(cmd);
  return d;
}

std::string FlightDescriptor::ToString() const {
  switch (type) {
    case Type::kPath: {
      std::string out = "path [";
      for (size_t i = 0; i < path.size(); ++i) {
        if (i > 0) out += ", ";
        out += path[i];
      }
      return out + "]";
    }
    case Type::kCmd: {
      constexpr size_t kShown = 64;
      std::string out = "cmd ";
      for (size_t i = 0; i < cmd.size() && i < kShown; ++i) {
        unsigned char c = static_cast<unsigned char>(cmd[i]);
        out += std::isprint(c) ? static_cast<char>(c) : '.';
      }
      if (cmd.size() > kShown) out += "...";
      return out;
    }
    case Type::kUnknown:
      break;
  }
  return "unknown descriptor";
}

bool IsTlsFlightAddress(std::string_view address) { return address.substr(0, 11) == "grpc+tls://"; }

Result<std::string> ParseFlightAddress(std::string_view address) {
  std::string_view rest = address;
  if (size_t scheme_end = rest.find("://"); scheme_end != std::string_view::npos) {
    std::string_view scheme = rest.substr(0, scheme_end);
    if (scheme != "grpc" && scheme != "grpc+tcp" && scheme != "grpc+tls") {
      return InvalidArgumentError("unsupported Flight address scheme '" + std::string(scheme) +
                                  "' in '" + std::string(address) +
                                  "': use grpc://host:port, grpc+tcp://host:port, grpc+tls://host:port or host:port");
    }
    rest = rest.substr(scheme_end + 3);
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("bad Flight address '" + std::string(address) +
                                "': " + std::string(why) + " (want host:port)");
  };
  size_t colon = rest.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = rest.substr(0, colon);
  std::string_view port = rest.substr(colon + 1);
  if (host.empty()) return bad("no host");
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return bad("unclosed IPv6 bracket");
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host must be in brackets");
  }
  for (char c : host) {
    if (c == '/' || c == '@' || c == '?' || c == '#' ||
        std::isspace(static_cast<unsigned char>(c))) {
      return bad("invalid character in host");
    }
  }
  auto port_number = ParseUint64(port);
  if (!port_number.ok() || *port_number > 65535) return bad("port must be 0..65535");
  return std::string(rest);
}

}  // namespace mink::flight
