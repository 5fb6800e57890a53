#pragma once
// The values that cross Mink's Flight API, as plain C++ (no protobuf, no gRPC): what the server
// hands to a FlightHandler and what FlightClient returns. Byte fields are std::string holding raw
// bytes. The wire forms are in spec/arrow/Flight.proto; conversions live in protocol/wire.h,
// which only the server and client .cc files include.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace mink::flight {

// Names a flight: a path such as [database, table], or an opaque command (Mink: JSON).
struct FlightDescriptor {
  enum class Type { kUnknown = 0, kPath = 1, kCmd = 2 };

  Type type = Type::kUnknown;
  std::string cmd;                // when type == kCmd
  std::vector<std::string> path;  // when type == kPath

  static FlightDescriptor Path(std::vector<std::string> path);
  static FlightDescriptor Command(std::string cmd);

  // "path [db, t]" or "cmd <first bytes>", for messages and logs.
  std::string ToString() const;
  bool operator==(const FlightDescriptor&) const = default;
};

// One part of a flight: a ticket to redeem with DoGet, and where. No locations means the server
// that returned the endpoint.
struct FlightEndpoint {
  std::string ticket;
  std::vector<std::string> locations;  // URIs: grpc://host:port or grpc+tcp://host:port
  std::string app_metadata;

  bool operator==(const FlightEndpoint&) const = default;
};

struct FlightInfo {
  std::string schema;  // encapsulated IPC Schema message (continuation, length, flatbuffer)
  FlightDescriptor descriptor;
  std::vector<FlightEndpoint> endpoints;
  int64_t total_records = -1;  // -1: unknown
  int64_t total_bytes = -1;    // -1: unknown
  bool ordered = false;
  std::string app_metadata;

  bool operator==(const FlightInfo&) const = default;
};

// One Arrow IPC message of a stream. `body` can be large: move it in and out, do not copy.
struct FlightData {
  std::optional<FlightDescriptor> descriptor;  // only on the first message of a DoPut
  std::string data_header;                     // flatbuffer Message, no prefix
  std::string body;                            // the message body (FlightData.data_body)
  std::string app_metadata;

  bool operator==(const FlightData&) const = default;
};

struct Action {
  std::string type;
  std::string body;  // Mink: JSON

  bool operator==(const Action&) const = default;
};

struct ActionType {
  std::string type;
  std::string description;

  bool operator==(const ActionType&) const = default;
};

struct ActionResult {
  std::string body;

  bool operator==(const ActionResult&) const = default;
};

struct PutResult {
  std::string app_metadata;

  bool operator==(const PutResult&) const = default;
};

// Accepts "grpc://host:port", "grpc+tcp://host:port", "grpc+tls://host:port" and "host:port"
// (host may be a name, an IPv4 address or a bracketed IPv6 address) and returns "host:port".
// Other schemes (unix sockets) and a missing or bad port are InvalidArgument naming the address.
Result<std::string> ParseFlightAddress(std::string_view address);
// Whether the address says TLS (grpc+tls://).
bool IsTlsFlightAddress(std::string_view address);

}  // namespace mink::flight
