#include "lake/rest_client.h"

#include <cctype>
#include <chrono>


namespace mink::lake {
namespace {

// Percent-encodes a path segment (RFC 3986 unreserved characters stay).
std::string Escape(const std::string& text) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// Namespace levels joined by the unit separator (0x1F), as the REST API's paths have them.
std::string NamespacePath(const std::vector<std::string>& space) {
  std::string joined;
  for (size_t i = 0; i < space.size(); ++i) joined += (i ? "\x1f" : "") + space[i];
  return Escape(joined);
}

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Status RestCatalogClient::Login() {
  const size_t colon = options_.credential.find(':');
  if (colon == std::string::npos) {
    return InvalidArgumentError("lake.credential is <client id>:<client secret>, and has no ':'");
  }
  std::string url = options_.uri;
  while (!url.empty() && url.back() == '/') url.pop_back();
  http::HttpRequest request;
  request.method = "POST";
  request.url = url + "/v1/oauth/tokens";
  request.headers.push_back({"Content-Type", "application/x-www-form-urlencoded"});
  const std::string form = "grant_type=client_credentials&client_id=" + Escape(options_.credential.substr(0, colon)) +
                           "&client_secret=" + Escape(options_.credential.substr(colon + 1)) + "&scope=catalog";
  request.body = form;  // a view: `form` outlives the call
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, http_.Perform(request));
  Json answer = Json::parse(response.body, nullptr, false);
  if (response.status != 200 || !answer.is_object() || !answer.contains("access_token") ||
      !answer["access_token"].is_string()) {
    std::string why = answer.is_object() ? answer.value("error", "") + " " + answer.value("error_description", "")
                                         : "HTTP " + std::to_string(response.status);
    if (response.status >= 500) return UnavailableError("the catalog's token endpoint " + request.url + ": " + why);
    return FailedPreconditionError("the catalog's token endpoint " + request.url + " refused lake.credential: " + why);
  }
  // Renew at half its life (an hour when the answer does not say), so a slow call never carries
  // an expired one.
  const int64_t lifetime_ms = answer.value("expires_in", int64_t{3600}) * 1000;
  std::lock_guard<std::mutex> lock(token_mu_);
  token_ = answer["access_token"].get<std::string>();
  token_renew_ms_ = SteadyMs() + lifetime_ms / 2;
  return Status::Ok();
}

std::string RestCatalogClient::Bearer() {
  if (options_.credential.empty()) return options_.token;
  bool stale;
  {
    std::lock_guard<std::mutex> lock(token_mu_);
    stale = token_.empty() || SteadyMs() >= token_renew_ms_;
  }
  if (stale) (void)Login();  // a failure shows as the call's 401
  std::lock_guard<std::mutex> lock(token_mu_);
  return token_;
}

Result<std::unique_ptr<RestCatalogClient>> RestCatalogClient::Connect(RestClientOptions options) {
  std::unique_ptr<RestCatalogClient> client(new RestCatalogClient(std::move(options)));
  if (!client->options_.credential.empty()) MINK_RETURN_IF_ERROR(client->Login());
  std::string path = "config";
  if (!client->options_.warehouse.empty()) path += "?warehouse=" + Escape(client->options_.warehouse);
  MINK_ASSIGN_OR_RETURN(Json config, client->Call("GET", path, nullptr, "the catalog's configuration"));
  const Json overrides = config.value("overrides", Json::object());
  if (overrides.is_object() && overrides.contains("prefix") && overrides["prefix"].is_string()) {
    client->prefix_ = overrides["prefix"].get<std::string>();
  }
  return client;
}

Result<RestCatalogClient::Json> RestCatalogClient::Call(const std::string& method, const std::string& path,
                                                       const Json* body, const std::string& what) {
  std::string url = options_.uri;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/v1/" + (prefix_.empty() || path.rfind("config", 0) == 0 ? "" : Escape(prefix_) + "/") + path;
  const std::string text = body != nullptr ? body->dump() : "";
  auto perform = [&]() -> Result<http::HttpResponse> {
    http::HttpRequest request;
    request.method = method;
    request.url = url;
    request.headers.push_back({"Accept", "application/json"});
    if (const std::string bearer = Bearer(); !bearer.empty()) {
      request.headers.push_back({"Authorization", "Bearer " + bearer});
    }
    if (body != nullptr) {
      request.headers.push_back({"Content-Type", "application/json"});
      request.body = text;
    }
    return http_.Perform(request);
  };
  MINK_ASSIGN_OR_RETURN(http::HttpResponse response, perform());
  if (response.status == 401 && !options_.credential.empty()) {
    // A token the catalog no longer takes (its signing key rotated): once more with a new one.
    MINK_RETURN_IF_ERROR(Login());
    MINK_ASSIGN_OR_RETURN(response, perform());
  }
  Json answer = response.body.empty() ? Json::object() : Json::parse(response.body, nullptr, false);
  if (response.status >= 200 && response.status < 300) {
    if (answer.is_discarded()) return UnavailableError(what + ": the catalog answered " + url + " with no JSON");
    return answer;
  }
  std::string message = "HTTP " + std::to_string(response.status);
  if (!answer.is_discarded() && answer.contains("error") && answer["error"].is_object()) {
    message = answer["error"].value("type", "") + ": " + answer["error"].value("message", "");
  }
  message = what + ": the Iceberg REST catalog at " + options_.uri + " answered " + message;
  switch (response.status) {
    case 400: return InvalidArgumentError(message);
    case 401:
    case 403: return FailedPreconditionError(message);
    case 404: return NotFoundError(message);
    case 409: return method == "POST" && path.find("/tables/") == std::string::npos && path != "transactions/commit"
                         ? AlreadyExistsError(message)
                         : AbortedError(message);
    default: return UnavailableError(message);
  }
}

std::string RestCatalogClient::TablePath(const Namespace& space, const std::string& name) const {
  return "namespaces/" + NamespacePath(space) + "/tables/" + Escape(name);
}

Status RestCatalogClient::EnsureNamespace(const Namespace& space) {
  const Json body = {{"namespace", space}, {"properties", Json::object()}};
  auto created = Call("POST", "namespaces", &body, "creating namespace " + NamespacePath(space));
  if (!created.ok() && created.status().code() != StatusCode::kAlreadyExists) return created.status();
  return Status::Ok();
}

Result<std::optional<RestCatalogClient::Table>> RestCatalogClient::LoadTable(const Namespace& space,
                                                                            const std::string& name) {
  auto loaded = Call("GET", TablePath(space, name), nullptr, "loading table " + name);
  if (!loaded.ok()) {
    if (loaded.status().code() == StatusCode::kNotFound) return std::optional<Table>();
    return loaded.status();
  }
  return std::optional<Table>(Table{loaded->value("metadata-location", ""), loaded->value("metadata", Json())});
}

Result<RestCatalogClient::Table> RestCatalogClient::CreateTable(const Namespace& space, const std::string& name,
                                                                const Json& schema, const Json& partition_spec,
                                                                const std::string& location, const Json& properties) {
  Json body = {{"name", name}, {"schema", schema}, {"partition-spec", partition_spec}, {"properties", properties}};
  if (!location.empty()) body["location"] = location;
  MINK_ASSIGN_OR_RETURN(Json created, Call("POST", "namespaces/" + NamespacePath(space) + "/tables", &body,
                                           "creating table " + name));
  return Table{created.value("metadata-location", ""), created.value("metadata", Json())};
}

Result<RestCatalogClient::Table> RestCatalogClient::CommitTable(const Namespace& space, const std::string& name,
                                                                const Json& requirements, const Json& updates) {
  const Json body = {{"requirements", requirements}, {"updates", updates}};
  MINK_ASSIGN_OR_RETURN(Json committed, Call("POST", TablePath(space, name), &body, "committing to table " + name));
  return Table{committed.value("metadata-location", ""), committed.value("metadata", Json())};
}

}  // namespace mink::lake
