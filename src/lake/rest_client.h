#pragma once
// RestCatalogClient: Mink as a client of an Iceberg REST catalog (`lake.catalog = rest`, any
// catalog that speaks the Iceberg REST API, Mink's own among them): the calls that tiering into
// an external catalog needs. Requests carry the bearer token when one is set, or one from the
// catalog's OAuth2 token endpoint (POST /v1/oauth/tokens, client credentials) when a credential
// is: fetched at Connect, again before it expires and when the catalog answers 401. The prefix the
// catalog's /v1/config gives (overrides.prefix) goes in front of every path. Errors map the
// catalog's answers: 404 NotFound, 409 Aborted (a commit lost a race or a requirement failed;
// AlreadyExists for a create), 401 and 403 FailedPrecondition naming the catalog's message, 400
// InvalidArgument, 5xx and transport failures Unavailable (retriable).
//
// Thread-safe.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "http/http_client.h"

namespace mink::lake {

struct RestClientOptions {
  std::string uri;        // the catalog's base URI, e.g. http://127.0.0.1:8181 (before /v1)
  std::string token;      // a bearer token; "" for none
  std::string warehouse;  // sent to /v1/config as ?warehouse= ("": not sent)
  std::string credential;  // "<client id>:<client secret>" for the token endpoint ("": none)
};

class RestCatalogClient {
 public:
  using Json = nlohmann::json;
  using Namespace = std::vector<std::string>;

  // Reads the catalog's configuration (GET /v1/config).
  static Result<std::unique_ptr<RestCatalogClient>> Connect(RestClientOptions options);

  // Creates the namespace unless it exists.
  Status EnsureNamespace(const Namespace& space);

  struct Table {
    std::string metadata_location;
    Json metadata;
  };
  // The table, or nullopt when the catalog has none of that name.
  Result<std::optional<Table>> LoadTable(const Namespace& space, const std::string& name);
  // Creates a table (POST .../tables with name, schema, partition-spec, properties and, when not
  // empty, location).
  Result<Table> CreateTable(const Namespace& space, const std::string& name, const Json& schema,
                            const Json& partition_spec, const std::string& location, const Json& properties);
  // Commits `requirements` and `updates` to the table.
  Result<Table> CommitTable(const Namespace& space, const std::string& name, const Json& requirements,
                            const Json& updates);

  const std::string& prefix() const { return prefix_; }

 private:
  explicit RestCatalogClient(RestClientOptions options) : options_(std::move(options)) {}
  // The answer of a request to `path` (after /v1 and the prefix), or the error it maps to.
  Result<Json> Call(const std::string& method, const std::string& path, const Json* body,
                    const std::string& what);
  std::string TablePath(const Namespace& space, const std::string& name) const;
  // With a credential: a fresh token from the token endpoint.
  Status Login();
  std::string Bearer();

  const RestClientOptions options_;
  std::string prefix_;
  http::HttpClient http_;
  std::mutex token_mu_;
  std::string token_;          // from Login
  int64_t token_renew_ms_ = 0;  // steady ms after which Login runs again
};

}  // namespace mink::lake
