#pragma once
// Membership: which nodes make up the cluster and which of them are live. Every node process
// upserts a heartbeat row every second with its node epoch and its advertised Flight and Kafka
// addresses (Heartbeater); a node is live while its row is younger than the session timeout and
// names the node's newest registered epoch (an older process of the same node id is fenced).
// Heartbeats are a plain table of the metadata database, not commands: they would spend the
// command log's budget (docs/architecture.md, Metadata log).
//
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/result.h"
#include "metadata/metadata_log.h"

namespace mink::cluster {

// Kafka's brokers are expired after 9 s without a heartbeat (broker.session.timeout.ms): a
// node misses several one-second heartbeats before its buckets move, and a client's retries
// (librdkafka retries for 5 minutes by default) outlast the move.
inline constexpr std::chrono::milliseconds kDefaultSessionTimeout{9000};
inline constexpr std::chrono::milliseconds kHeartbeatInterval{1000};

struct Member {
  int32_t node_id = 0;
  int64_t node_epoch = 0;
  std::string flight_address;  // grpc://host:port
  std::string kafka_address;   // host:port, "" without a Kafka listener
  int64_t heartbeat_ms = 0;    // when the last heartbeat was written (the writer's clock)
  bool live = false;
  bool coordinator = false;  // the elected coordinator (coordinator.h)
};

class Membership {
 public:
  Membership(metadata::MetadataLog* meta, std::chrono::milliseconds session_timeout)
      : meta_(meta), session_timeout_(session_timeout) {}

  // Every node that ever heartbeat, by node id, with whether it is live now.
  Result<std::vector<Member>> Members() const;
  std::chrono::milliseconds session_timeout() const { return session_timeout_; }

 private:
  metadata::MetadataLog* const meta_;
  const std::chrono::milliseconds session_timeout_;
};

// When this node process last reached the metadata database with a heartbeat. A node whose
// last heartbeat that arrived was sent so long ago that the others may take its work over
// within a heartbeat interval (the session timeout less one interval) is out of touch: it fences
// itself, acknowledging no write and claiming no partition or group, before they take over
// (docs/architecture.md, Guarantees). Thread-safe.
class DatabaseTouch {
 public:
  explicit DatabaseTouch(std::chrono::milliseconds session_timeout)
      : session_timeout_(session_timeout) {}
  void Reached(SteadyTime sent) { last_ns_.store(sent.time_since_epoch().count()); }
  // False before the first heartbeat: the others do not count the node as live yet either.
  bool OutOfTouch() const;

 private:
  const std::chrono::milliseconds session_timeout_;
  std::atomic<int64_t> last_ns_{0};
};

// Writes this node process's heartbeat at once and then every kHeartbeatInterval, on a thread
// of its own, until stopped: through the log's liveness store, stamped with the database's
// clock (MetadataLog::liveness_clock). `touch` (optional) hears of each one that arrived.
class Heartbeater {
 public:
  Heartbeater(metadata::MetadataLog* meta, metadata::Heartbeat self, DatabaseTouch* touch = nullptr);
  ~Heartbeater() { Stop(); }
  void Stop();

 private:
  void Loop();

  metadata::MetadataLog* const meta_;
  const metadata::Heartbeat self_;
  DatabaseTouch* const touch_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace mink::cluster
