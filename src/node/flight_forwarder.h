#pragma once
// FlightForwarder: TableStore's BucketForwarder over Arrow Flight. A write a node receives for
// buckets another node serves goes to that node's advertised Flight address as one DoPut marked
// "forwarded", and a lookup's keys of such buckets as one DoExchange lookup marked "forwarded"
// (docs/flight-api.md), so `mink write`, `mink lookup`, mink-query and any Flight client can use
// any node. One channel per address, kept for the node's life.

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "cluster/membership.h"
#include "flight/client/flight_client.h"
#include "table/bucket_forwarder.h"

namespace mink::node {

class FlightForwarder final : public table::BucketForwarder {
 public:
  // `calls`: the headers of every forwarded call (a node's bearer token when clients
  // authenticate) and its TLS: what a node trusts of another's grpc+tls:// address, and the
  // certificate it shows when asked (mutual TLS).
  explicit FlightForwarder(const cluster::Membership* membership,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30),
                           flight::FlightClientOptions calls = {})
      : membership_(membership), timeout_(timeout), calls_(std::move(calls)) {}

  Result<table::WriteResult> Write(int32_t node_id, const table::WriteRequest& request,
                                   const std::vector<arrow::RecordBatchPtr>& batches) override;
  Result<arrow::RecordBatchPtr> Lookup(int32_t node_id, const table::LookupRequest& request,
                                       const arrow::RecordBatchPtr& keys) override;

 private:
  // Shared: a call in flight keeps its client while a newer process of the node replaces it.
  Result<std::shared_ptr<flight::FlightClient>> ClientOf(int32_t node_id);
  // The members, read from the database at most every kMembersFresh; while one call reads them
  // the others use the last list, so a database that does not answer holds up one call, not all.
  Result<std::vector<cluster::Member>> Members();
  static constexpr std::chrono::milliseconds kMembersFresh{500};

  const cluster::Membership* const membership_;
  const std::chrono::milliseconds timeout_;
  const flight::FlightClientOptions calls_;
  std::mutex members_mutex_;  // guards members_ and members_read_at_
  std::vector<cluster::Member> members_;
  std::chrono::steady_clock::time_point members_read_at_{};
  std::mutex refresh_mutex_;  // held by the call reading the members from the database
  std::mutex mutex_;
  // By address: the node epoch the client was made for, and the client.
  std::map<std::string, std::pair<int64_t, std::shared_ptr<flight::FlightClient>>> clients_;
};

}  // namespace mink::node
