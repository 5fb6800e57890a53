#pragma once
// The JSON a Flight caller sends (docs/flight-api.md): tickets, the commands of FlightDescriptors
// (DoPut, DoExchange) and the bodies of actions, read into the table layer's requests. Each
// reader checks the type of every member it reads and refuses what does not fit with
// InvalidArgument naming the member; nothing here throws (nlohmann's accessors do, and gRPC
// answers an exception UNKNOWN "Unexpected error", naming nothing). Pure: the flight_request
// fuzz target runs these on strangers' bytes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "table/descriptor.h"
#include "table/requests.h"
#include "table/schema_change.h"

namespace mink::flight {

// `text` as a JSON object ("" is {}); `what` names it in the error.
Result<nlohmann::json> ParseJsonObject(std::string_view text, const std::string& what);

// Typed access to an object's members, with errors that name the member. An absent or null
// member is the fallback (or, where required, an error).
class JsonFields {
 public:
  JsonFields(const nlohmann::json& j, std::string what) : j_(j), what_(std::move(what)) {}
  Result<std::string> String(const char* name, bool required = true) const;
  Result<std::vector<std::string>> Strings(const char* name) const;
  Result<int64_t> Int(const char* name, int64_t fallback) const;
  // An integer that fits an int32 (a bucket, a sequence number).
  Result<int32_t> Int32(const char* name, int32_t fallback) const;
  Result<bool> Bool(const char* name) const;
  Result<std::map<std::string, std::string>> StringMap(const char* name) const;
  bool Has(const char* name) const;

 private:
  const nlohmann::json* Member(const char* name) const;
  const nlohmann::json& j_;
  std::string what_;
};

// A DoGet ticket.
Result<table::ReadRequest> ParseTicket(std::string_view ticket);
// The ticket's "compressed": the reader takes record batches with compressed bodies.
Result<bool> WantsCompressed(std::string_view ticket);
// A DoPut command descriptor: {"table", "mode", "columns", "writer_id", "sequence", "forwarded"}.
Result<table::WriteRequest> ParsePutCommand(std::string_view cmd);
// A DoExchange command descriptor: {"table", "lookup": "key" | "prefix", "columns", "forwarded"}.
Result<table::LookupRequest> ParseLookupCommand(std::string_view cmd);
// The create-table action's body, but its name.
Result<table::TableSpec> ParseTableSpec(const nlohmann::json& body, const std::string& what);
// The alter-table action's body, but its name.
Result<table::TableAlteration> ParseAlteration(const nlohmann::json& body, const std::string& what);

}  // namespace mink::flight
