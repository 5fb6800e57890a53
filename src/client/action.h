#pragma once
// What every client of Mink's Flight API (docs/flight-api.md) shares: the default node address
// and its environment variable, and the JSON action call.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "flight/client/flight_client.h"

namespace mink::client {

inline constexpr char kDefaultBootstrap[] = "grpc://127.0.0.1:9123";
inline constexpr char kBootstrapEnv[] = "MINK_BOOTSTRAP";
// Who a client is to a node that asks clients to authenticate: MINK_TOKEN (a bearer token), else
// MINK_USER and MINK_PASSWORD (HTTP Basic).
inline constexpr char kTokenEnv[] = "MINK_TOKEN";
inline constexpr char kUserEnv[] = "MINK_USER";
inline constexpr char kPasswordEnv[] = "MINK_PASSWORD";

// The certificates a client trusts for a grpc+tls:// node: the PEM file MINK_TLS_CA names
// (unset: the system's roots).
inline constexpr char kTlsCaEnv[] = "MINK_TLS_CA";
// The client's certificate chain and key (PEM files) for a node that asks for one (mutual TLS).
inline constexpr char kTlsCertEnv[] = "MINK_TLS_CLIENT_CERT";
inline constexpr char kTlsKeyEnv[] = "MINK_TLS_CLIENT_KEY";

// The headers that say who the client is, from the environment (none when it says nothing).
std::vector<std::pair<std::string, std::string>> AuthorizationHeaders();
// Sets who the client is, what it trusts and the certificate it shows from the environment;
// InvalidArgument when MINK_TLS_CA, MINK_TLS_CLIENT_CERT or MINK_TLS_CLIENT_KEY names a file that cannot be
// read, or only one of the last two is set.
Status ApplyEnvironment(flight::FlightClientOptions* options);

// DoAction with a JSON body; returns the (first) result parsed as JSON ({} when there is none or
// it is empty). An answer that is not JSON is Internal "the node answered <type> with bad JSON".
Result<nlohmann::json> RunAction(flight::FlightClient& client, const std::string& type,
                                 const nlohmann::json& body);

// Compact JSON text that never throws (invalid UTF-8 is replaced).
std::string DumpJson(const nlohmann::json& j);

}  // namespace mink::client
