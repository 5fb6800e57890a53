#include "query/flight_sql_handles.h"

#include "auth/scram.h"
#include "base/strings.h"

namespace mink::query {
namespace {

// 128 random bits: a handle cannot be guessed (it is also checked against its owner).
std::string NewHandle() {
  auto bytes = auth::scram::RandomBytes(16);
  if (!bytes.ok()) std::abort();  // OpenSSL's generator failing leaves nothing safe to do
  return HexEncode(*bytes);
}

template <typename Map>
void Bound(Map& map, std::deque<std::string>& order, size_t limit) {
  while (order.size() > limit) {
    map.erase(order.front());
    order.pop_front();
  }
}

}  // namespace

std::string FlightSqlHandles::AddStatement(const std::string& owner, std::string sql) {
  std::string handle = NewHandle();
  std::lock_guard<std::mutex> lock(mu_);
  statements_[handle] = {owner, std::move(sql)};
  statement_order_.push_back(handle);
  Bound(statements_, statement_order_, kMaxHandles);
  return handle;
}

Result<std::string> FlightSqlHandles::TakeStatement(const std::string& owner, const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = statements_.find(handle);
  if (it == statements_.end() || it->second.owner != owner) {
    return NotFoundError("unknown or already used statement handle (each ticket is read once)");
  }
  std::string sql = std::move(it->second.value);
  statements_.erase(it);
  return sql;
}

std::string FlightSqlHandles::AddPrepared(const std::string& owner, std::shared_ptr<PreparedQuery> prepared) {
  std::string handle = NewHandle();
  std::lock_guard<std::mutex> lock(mu_);
  prepared_[handle] = {owner, std::move(prepared)};
  prepared_order_.push_back(handle);
  Bound(prepared_, prepared_order_, kMaxHandles);
  return handle;
}

Result<std::shared_ptr<PreparedQuery>> FlightSqlHandles::FindPrepared(const std::string& owner,
                                                                      const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = prepared_.find(handle);
  if (it == prepared_.end() || it->second.owner != owner) return NotFoundError("unknown prepared statement handle");
  return it->second.value;
}

Status FlightSqlHandles::ClosePrepared(const std::string& owner, const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = prepared_.find(handle);
  if (it == prepared_.end() || it->second.owner != owner) return NotFoundError("unknown prepared statement handle");
  prepared_.erase(it);
  return Status::Ok();
}

}  // namespace mink::query
