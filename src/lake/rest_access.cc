#include "lake/rest_access.h"

#include <nlohmann/json.hpp>

#include "base/strings.h"
#include "lake/rest_common.h"

namespace mink::lake {
namespace {

using Json = nlohmann::json;
using auth::Operation;
using auth::Resource;

constexpr char kTokenExchange[] = "urn:ietf:params:oauth:grant-type:token-exchange";
constexpr char kAccessTokenType[] = "urn:ietf:params:oauth:token-type:access_token";

// An OAuth2 error (RFC 6749 5.2), as the Iceberg REST spec's OAuthError.
http::ServerResponse OAuthError(int status, const std::string& error, const std::string& description) {
  http::ServerResponse r{status, "application/json",
                         Json{{"error", error}, {"error_description", description}}.dump(), {}};
  r.headers.emplace_back("Cache-Control", "no-store");
  if (status == 401) r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"mink\"");
  return r;
}

bool Under(const metadata::NamespaceName& inner, const metadata::NamespaceName& outer) {
  return inner.size() >= outer.size() && std::equal(outer.begin(), outer.end(), inner.begin());
}

}  // namespace

Result<std::string> RestAccess::Authenticate(const http::ServerRequest& request) const {
  if (!enabled()) return std::string();
  const std::string header = request.Header("authorization");
  if (header.empty()) {
    return PermissionDeniedError("this catalog needs credentials: Authorization: Bearer <token> (POST /v1/oauth/tokens) "
                                 "or Basic");
  }
  return o_.authenticator->Check(header);
}

http::ServerResponse RestAccess::Token(const http::ServerRequest& request) const {
  if (!enabled()) {
    return OAuthError(400, "invalid_request", "authentication is off on this node: call the catalog without a token");
  }
  // The fields are the body's only (the server's query map may hold them too): a secret in a
  // URL would end up in logs, so none is taken from there.
  const auto form = http::ParseForm(request.body);
  auto field = [&](const char* name) {
    auto it = form.find(name);
    return it == form.end() ? std::string() : it->second;
  };
  const std::string grant = field("grant_type");
  Result<std::string> user = PermissionDeniedError("");
  if (grant == "client_credentials") {
    std::string basic = request.Header("authorization");
    if (basic.rfind("Basic ", 0) != 0) {
      if (field("client_id").empty()) return OAuthError(400, "invalid_request", "client_id and client_secret are missing");
      basic = "Basic " + Base64Encode(field("client_id") + ":" + field("client_secret"));
    }
    user = o_.authenticator->Check(basic);
  } else if (grant == kTokenExchange) {
    if (field("subject_token").empty()) return OAuthError(400, "invalid_request", "subject_token is missing");
    user = o_.authenticator->Check("Bearer " + field("subject_token"));
  } else {
    return OAuthError(400, "unsupported_grant_type",
                      "grant_type is client_credentials or " + std::string(kTokenExchange) + ", not '" + grant + "'");
  }
  if (!user.ok()) return OAuthError(401, "invalid_client", "the credentials are not accepted");
  Json body = {{"access_token", o_.authenticator->IssueToken(*user)},
               {"token_type", "bearer"},
               {"expires_in", o_.authenticator->token_lifetime().count() / 1000},
               {"issued_token_type", kAccessTokenType}};
  if (!field("scope").empty()) body["scope"] = field("scope");
  http::ServerResponse r{200, "application/json", body.dump(), {}};
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

Resource RestAccess::NamespaceResource(const metadata::NamespaceName& space) {
  return Resource::Database(space.empty() ? std::string() : space[0]);
}

Resource RestAccess::TableResource(const metadata::NamespaceName& space, const std::string& name) {
  return Resource::Table(rest::Dotted(space) + "." + name);
}

Status RestAccess::Need(const std::string& user, const Resource& resource, Operation op) const {
  if (!enabled()) return Status::Ok();
  return o_.access->Check(user, resource, op);
}

bool RestAccess::May(const std::string& user, const Resource& resource, Operation op) const {
  return !enabled() || o_.access->Allowed(user, resource, op);
}

bool RestAccess::MaySee(const std::string& user, const metadata::State& s, const metadata::NamespaceName& space) const {
  if (May(user, NamespaceResource(space), Operation::kDescribe)) return true;
  for (const auto& [id, t] : s.tables()) {
    if (Under({t.database}, space) && May(user, Resource::Table(t.full_name()), Operation::kDescribe)) return true;
  }
  for (const auto& [name, table] : s.lake_catalog_tables()) {
    if (Under(name.first, space) && May(user, TableResource(name.first, name.second), Operation::kDescribe)) return true;
  }
  return false;
}

}  // namespace mink::lake
