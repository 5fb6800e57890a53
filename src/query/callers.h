#pragma once
// Callers: who calls `mink-query serve`. A caller says who they are as a node's callers do, with
// an "authorization" header: Basic with a Mink user's password, Bearer with a token a node
// issued, or Bearer with a token this server issued at a Flight Handshake. The header is let in
// when the cluster accepts it (a list-databases call as that caller); from then on the caller's
// sessions read through a cluster client that sends that header, so the nodes check the
// caller's rights, never mink-query's own. No header is the anonymous caller, let in only while
// the cluster lets anonymous callers in (authentication off).
//
// The cluster's yes is kept for kCheckedFor: a deleted user or a changed password reaches serve
// within it (and every read is still checked by the node). A refusal is not kept.
//
// Thread-safe.

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/clock.h"
#include "base/result.h"
#include "client/cluster.h"

namespace mink::query {

struct Caller {
  std::string key;  // kAnonymousCaller, or "caller-<n>": not a secret, names the caller's handles
  std::shared_ptr<client::Cluster> cluster;  // reads as the caller
  bool anonymous() const;
};

inline constexpr char kAnonymousCaller[] = "anonymous";

class Callers {
 public:
  static constexpr std::chrono::seconds kCheckedFor{30};
  static constexpr std::chrono::hours kTokenLifetime{1};

  explicit Callers(std::string bootstrap, const Clock* clock = SystemClock::Get());

  // The key of the caller the header names, once the cluster accepts it. Refusals name why
  // ("the cluster does not accept these credentials: ...").
  Result<std::string> Authenticate(const std::string& authorization);
  // A bearer token for an authenticated caller (the answer to a Handshake), valid for
  // kTokenLifetime; it stands for the header the caller authenticated with.
  Result<std::string> IssueToken(const std::string& key);
  // The caller of a key Authenticate answered.
  Result<Caller> Find(const std::string& key) const;

 private:
  struct Known {
    Caller caller;
    std::string authorization;  // what the cluster is sent
    int64_t checked_until = 0;  // ms since the epoch
  };
  // Asks the cluster whether it lets `cluster`'s caller in.
  static Status Check(client::Cluster& cluster);

  const std::string bootstrap_;
  const Clock* const clock_;
  mutable std::mutex mu_;
  uint64_t next_ = 0;
  std::map<std::string, Known> by_header_;                       // authorization -> caller
  std::map<std::string, std::string> key_to_header_;             // caller key -> authorization
  std::map<std::string, std::pair<std::string, int64_t>> tokens_;  // token -> key, expiry
};

}  // namespace mink::query
