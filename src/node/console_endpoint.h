#pragma once
// ConsoleEndpoint: the browser console on the node's HTTP listener (docs/operations.md,
// Console):
//   GET  /console                the page (console/index.html, built into the binary)
//   GET  /console/api/overview   JSON: the cluster's nodes; each database's tables with their
//                                buckets (owner, start and end offset) and lake snapshot; the
//                                consumer groups with each partition's committed offset, end and lag
//   POST /console/api/query      {"sql"}: the statement run by mink-query over Flight SQL
//                                (--console-query); {"columns", "rows", "truncated"}
// With authentication on the page and its calls are authenticated like the rest of the HTTP API
// (OperationsEndpoint); the overview shows only what the user may describe, and the SQL box
// needs read on the cluster (mink-query reads with its own credentials).
//
// Thread-safe.

#include <optional>
#include <string>

#include "auth/access_control.h"
#include "cluster/membership.h"
#include "flight/client/flight_client.h"
#include "http/http_server.h"
#include "metadata/group_offset_store.h"
#include "table/table_store.h"

namespace mink::node {

struct ConsoleSources {
  table::TableStore* tables = nullptr;
  const cluster::Membership* membership = nullptr;     // null: no nodes listed
  metadata::GroupOffsetStore* group_offsets = nullptr;  // null without a Kafka listener
  const auth::AccessControl* access = nullptr;          // null: authentication off
  std::string query_address;                            // mink-query's Flight SQL; "": no SQL box
  flight::FlightClientOptions query_options;            // how the node calls it
};

class ConsoleEndpoint {
 public:
  explicit ConsoleEndpoint(ConsoleSources sources) : s_(std::move(sources)) {}

  // The answer for a /console path of `user`; none for any other path.
  std::optional<http::ServerResponse> Handle(const http::ServerRequest& request, const std::string& user) const;

 private:
  std::string Overview(const std::string& user) const;
  http::ServerResponse Query(const http::ServerRequest& request) const;
  bool May(const std::string& user, const auth::Resource& resource, auth::Operation op) const {
    return s_.access == nullptr || s_.access->Allowed(user, resource, op);
  }

  const ConsoleSources s_;
};

// The page itself (generated from console/index.html).
extern const char kConsolePage[];

}  // namespace mink::node
