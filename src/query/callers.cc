#include "query/callers.h"

#include "auth/scram.h"
#include "base/strings.h"

namespace mink::query {
namespace {

constexpr char kBearer[] = "Bearer ";
// Above this many known callers, those whose check has lapsed are forgotten.
constexpr size_t kMaxKnown = 4096;

}  // namespace

bool Caller::anonymous() const { return key == kAnonymousCaller; }

Callers::Callers(std::string bootstrap, const Clock* clock) : bootstrap_(std::move(bootstrap)), clock_(clock) {}

Status Callers::Check(client::Cluster& cluster) {
  auto databases = cluster.ListDatabases();
  if (databases.ok()) return Status::Ok();
  const Status& status = databases.status();
  if (status.code() == StatusCode::kPermissionDenied) {
    return PermissionDeniedError("the cluster does not accept these credentials: " + status.message());
  }
  return UnavailableError("cannot check the caller with the cluster at " + cluster.bootstrap() + ": " +
                          status.message());
}

Result<std::string> Callers::Authenticate(const std::string& authorization) {
  const int64_t now = clock_->NowMillis();
  std::string header = authorization;
  std::shared_ptr<client::Cluster> cluster;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (header.rfind(kBearer, 0) == 0) {
      auto token = tokens_.find(header.substr(sizeof(kBearer) - 1));
      if (token != tokens_.end()) {
        auto stands_for = key_to_header_.find(token->second.first);
        if (token->second.second <= now || stands_for == key_to_header_.end()) {
          tokens_.erase(token);
          return PermissionDeniedError("the token has expired: authenticate again");
        }
        header = stands_for->second;
      }
    }
    auto known = by_header_.find(header);
    if (known != by_header_.end()) {
      if (known->second.checked_until > now) return known->second.caller.key;
      cluster = known->second.caller.cluster;
    }
  }
  if (cluster == nullptr) {
    MINK_ASSIGN_OR_RETURN(cluster, client::Cluster::Connect(bootstrap_, header));
  }
  MINK_RETURN_IF_ERROR(Check(*cluster));
  const int64_t until =
      clock_->NowMillis() + std::chrono::duration_cast<std::chrono::milliseconds>(kCheckedFor).count();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = by_header_.try_emplace(header);
  if (added) {
    if (by_header_.size() > kMaxKnown) {
      for (auto old = by_header_.begin(); old != by_header_.end();) {
        if (old != it && old->second.checked_until <= now) {
          key_to_header_.erase(old->second.caller.key);
          old = by_header_.erase(old);
        } else {
          ++old;
        }
      }
    }
    it->second.caller.key = header.empty() ? kAnonymousCaller : "caller-" + std::to_string(++next_);
    it->second.caller.cluster = cluster;
    it->second.authorization = header;
    key_to_header_[it->second.caller.key] = header;
  }
  it->second.checked_until = until;
  return it->second.caller.key;
}

Result<std::string> Callers::IssueToken(const std::string& key) {
  MINK_ASSIGN_OR_RETURN(std::string random, auth::scram::RandomBytes(32));
  std::string token = HexEncode(random);
  const int64_t now = clock_->NowMillis();
  std::lock_guard<std::mutex> lock(mu_);
  if (key_to_header_.count(key) == 0) return NotFoundError("unknown caller " + key);
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = it->second.second <= now ? tokens_.erase(it) : std::next(it);
  }
  tokens_[token] = {key, now + std::chrono::duration_cast<std::chrono::milliseconds>(kTokenLifetime).count()};
  return token;
}

Result<Caller> Callers::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto header = key_to_header_.find(key);
  if (header == key_to_header_.end()) return PermissionDeniedError("the caller is no longer known: authenticate again");
  return by_header_.at(header->second).caller;
}

}  // namespace mink::query
