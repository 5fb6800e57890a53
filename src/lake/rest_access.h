#pragma once
// RestAccess: who calls the Iceberg REST catalog and what they may do (docs/iceberg-rest.md,
// Access). Callers are Mink's users: an Authorization header with a bearer token (from a node,
// or from this catalog's OAuth2 token endpoint) or Basic credentials. What they may do is
// Mink's access control lists: a namespace is the database its first level names, a table
// "<namespace, dotted>.<name>" (so a Mink table is its own name, and a grant on a database
// covers the namespaces under it). With authentication off every caller may do everything.
//
// The token endpoint (POST /v1/oauth/tokens, RFC 6749's client credentials grant with the
// user's name and password as client id and secret, and RFC 8693's token exchange to renew a
// token) answers tokens of the node's Authenticator, valid on any node of the cluster.
//
// Thread-safe.

#include <string>

#include "auth/access_control.h"
#include "auth/authenticator.h"
#include "http/http_server.h"
#include "metadata/state.h"

namespace mink::lake {

struct RestAccessOptions {
  const auth::Authenticator* authenticator = nullptr;  // null: authentication off
  const auth::AccessControl* access = nullptr;
};

class RestAccess {
 public:
  explicit RestAccess(RestAccessOptions options) : o_(options) {}

  bool enabled() const { return o_.authenticator != nullptr; }
  // The user the request's Authorization header names ("" with authentication off);
  // PermissionDenied saying why when there is none or it is not accepted.
  Result<std::string> Authenticate(const http::ServerRequest& request) const;
  // POST /v1/oauth/tokens.
  http::ServerResponse Token(const http::ServerRequest& request) const;

  static auth::Resource NamespaceResource(const metadata::NamespaceName& space);
  static auth::Resource TableResource(const metadata::NamespaceName& space, const std::string& name);
  // OK, or PermissionDenied naming what `user` may not do.
  Status Need(const std::string& user, const auth::Resource& resource, auth::Operation op) const;
  bool May(const std::string& user, const auth::Resource& resource, auth::Operation op) const;
  // Whether `user` sees the namespace: describe on it, or on a table in it or under it.
  bool MaySee(const std::string& user, const metadata::State& s, const metadata::NamespaceName& space) const;

 private:
  const RestAccessOptions o_;
};

}  // namespace mink::lake
