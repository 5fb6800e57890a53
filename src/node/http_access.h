#pragma once
// What a request to the HTTP API needs (docs/operations.md, Access control): POST /api/v1/sql
// what its statements need (flight::CheckContinuousSqlAccess); a WebSocket on /ws/<name> read
// on the stream's or view's output table continuous.<name>; GET /metrics describe on the
// cluster. Other paths (the console) need nothing more than authentication; /health and /ready
// need nothing.

#include <string>

#include "auth/access_control.h"
#include "http/http_server.h"

namespace mink::node {

// OK, or PermissionDenied naming what `user` may not do.
Status CheckHttpAccess(const auth::AccessControl& access, const std::string& user, const http::ServerRequest& request);

}  // namespace mink::node
