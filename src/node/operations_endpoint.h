#pragma once
// OperationsEndpoint: what an operator's tools ask a node over its HTTP listener
// (docs/operations.md), before anything else the listener serves:
//   GET /health   200 "ok": the process is up and serving HTTP;
//   GET /ready    200 "ready" once the node is ready for traffic: its metadata is caught up
//                 with the log (within a second) and every bucket it is to serve is open;
//                 else 503 naming what is not;
//   GET /metrics  the Prometheus text format: what the node records (requests, latencies,
//                 object-store calls), the state it gathers then (node_metrics.h), the process's.
// Other paths go to `next` with the request's user (the console and the continuous SQL API); with `authenticate` set (authentication
// on) only requests whose "authorization" header it accepts, others get 401 with
// WWW-Authenticate; and with `authorize` set only those it allows the user, others get 403.
// /health, /ready and /metrics stay open to orchestrators and Prometheus.
// Every request is logged at debug.
//
// Thread-safe.

#include <functional>

#include "http/http_server.h"
#include "node/node_metrics.h"
#include "table/table_store.h"

namespace mink::node {

class OperationsEndpoint {
 public:
  using Authenticate = std::function<Result<std::string>(const std::string& authorization)>;
  using Authorize = std::function<Status(const std::string& user, const http::ServerRequest& request)>;
  OperationsEndpoint(MetricSources sources, const table::TableStore* tables,
                     std::function<http::ServerResponse(const http::ServerRequest&, const std::string& user)> next,
                     Authenticate authenticate = nullptr, Authorize authorize = nullptr)
      : sources_(sources),
        tables_(tables),
        next_(std::move(next)),
        authenticate_(std::move(authenticate)),
        authorize_(std::move(authorize)) {}

  http::ServerResponse Handle(const http::ServerRequest& request) const;

 private:
  http::ServerResponse Route(const http::ServerRequest& request) const;
  http::ServerResponse Ready() const;

  const MetricSources sources_;
  const table::TableStore* const tables_;
  const std::function<http::ServerResponse(const http::ServerRequest&, const std::string& user)> next_;
  const Authenticate authenticate_;
  const Authorize authorize_;
};

}  // namespace mink::node
