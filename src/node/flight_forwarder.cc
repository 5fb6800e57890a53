#include "node/flight_forwarder.h"

#include <nlohmann/json.hpp>

#include "flight/client/exchange_batches.h"
#include "flight/client/put_batches.h"

namespace mink::node {

using nlohmann::json;

Result<std::vector<cluster::Member>> FlightForwarder::Members() {
  {
    std::lock_guard<std::mutex> lock(members_mutex_);
    if (!members_.empty() && std::chrono::steady_clock::now() - members_read_at_ < kMembersFresh) {
      return members_;
    }
  }
  std::unique_lock<std::mutex> refresh(refresh_mutex_, std::try_to_lock);
  if (!refresh.owns_lock()) {
    {
      std::lock_guard<std::mutex> lock(members_mutex_);
      if (!members_.empty()) return members_;  // another call is reading them
    }
    refresh.lock();
  }
  auto read = membership_->Members();
  std::lock_guard<std::mutex> lock(members_mutex_);
  if (read.ok()) {
    members_ = std::move(*read);
    members_read_at_ = std::chrono::steady_clock::now();
  }
  if (!members_.empty()) return members_;  // the last known, while the database is out of reach
  return read.status();
}

Result<std::shared_ptr<flight::FlightClient>> FlightForwarder::ClientOf(int32_t node_id) {
  MINK_ASSIGN_OR_RETURN(auto members, Members());
  const cluster::Member* member = nullptr;
  for (const auto& m : members) {
    if (m.node_id == node_id && m.live) member = &m;
  }
  if (member == nullptr) {
    return UnavailableError("node " + std::to_string(node_id) + " is not live; retry");
  }
  // One client per process of the node: a restarted node (a new epoch, often the same address)
  // gets a fresh connection instead of one still backing off from the old process's death.
  std::lock_guard<std::mutex> lock(mutex_);
  auto& [epoch, client] = clients_[member->flight_address];
  if (client == nullptr || epoch != member->node_epoch) {
    flight::FlightClientOptions options = calls_;
    options.connect_timeout = std::chrono::milliseconds(0);  // connect on the first call
    options.max_reconnect_backoff = std::chrono::milliseconds(500);
    MINK_ASSIGN_OR_RETURN(auto made, flight::FlightClient::Connect(member->flight_address, options));
    client = std::move(made);
    epoch = member->node_epoch;
  }
  return client;
}

Result<table::WriteResult> FlightForwarder::Write(
    int32_t node_id, const table::WriteRequest& request,
    const std::vector<arrow::RecordBatchPtr>& batches) {
  if (batches.empty()) return table::WriteResult{};
  MINK_ASSIGN_OR_RETURN(std::shared_ptr<flight::FlightClient> client, ClientOf(node_id));
  json command = {{"table", request.table},
                  {"mode", request.mode == table::WriteMode::kDelete ? "delete" : "upsert"},
                  {"writer_id", request.writer_id},
                  {"sequence", request.sequence},
                  {"forwarded", true}};
  if (!request.columns.empty()) command["columns"] = request.columns;
  flight::CallOptions options;
  options.timeout = timeout_;
  MINK_ASSIGN_OR_RETURN(auto answers, flight::PutBatches(*client, command.dump(),
                                                         *batches.front()->schema(), batches,
                                                         options));
  table::WriteResult result;
  for (const auto& answer : answers) {
    json j = json::parse(answer, nullptr, false);
    if (!j.is_object()) return InternalError("node " + std::to_string(node_id) + " answered a write with '" + answer + "'");
    result.rows += j.value("rows", int64_t{0});
    for (const auto& b : j.value("buckets", json::array())) {
      result.buckets.push_back({b.value("bucket", std::string()), b.value("base_offset", int64_t{0}),
                                b.value("end_offset", int64_t{0})});
    }
  }
  return result;
}

Result<arrow::RecordBatchPtr> FlightForwarder::Lookup(int32_t node_id,
                                                     const table::LookupRequest& request,
                                                     const arrow::RecordBatchPtr& keys) {
  MINK_ASSIGN_OR_RETURN(std::shared_ptr<flight::FlightClient> client, ClientOf(node_id));
  json command = {{"table", request.table},
                  {"lookup", request.prefix ? "prefix" : "key"},
                  {"forwarded", true}};
  if (!request.columns.empty()) command["columns"] = request.columns;
  flight::CallOptions options;
  options.timeout = timeout_;
  MINK_ASSIGN_OR_RETURN(auto exchange, flight::BatchExchange::Open(*client, command.dump(),
                                                                   *keys->schema(), options));
  MINK_ASSIGN_OR_RETURN(auto rows, exchange->Call(*keys));
  MINK_RETURN_IF_ERROR(exchange->Finish());
  return rows;
}

}  // namespace mink::node
