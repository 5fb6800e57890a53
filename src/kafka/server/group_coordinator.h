#pragma once
// GroupCoordinator: Kafka consumer groups with the classic rebalance protocol (docs/kafka.md,
// "Consumer groups"). This node is the coordinator of every group.
//
// - Group state (members, generations, assignments) lives in memory only: after a restart
//   clients find their member ids unknown and rejoin, as with Kafka when a coordinator moves.
// - Committed offsets are durable (OffsetStore over metadata::GroupOffsetStore): every OffsetCommit is in
//   the database before it is answered, and a group's offsets are read back on first use.
//
// Each request method takes the decoded request and answers through `done`. JoinGroup and
// SyncGroup may park until the rebalance completes; then `done` runs later on the coordinator's
// timer thread or on the thread of another member's request. Otherwise `done` runs before the
// method returns, on the calling thread. `done` is never called with the coordinator's lock held,
// and exactly once (Stop() answers parked requests with COORDINATOR_NOT_AVAILABLE).
//
// Blocking: OffsetCommit, OffsetFetch, DescribeGroups, ListGroups and DeleteGroups may wait on
// the metadata database (and OffsetCommit on `partition_exists`): call them from a blocking pool,
// not an io thread. The other methods only take the coordinator's lock.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "kafka/protocol/delete_groups.h"
#include "kafka/protocol/describe_groups.h"
#include "kafka/protocol/heartbeat.h"
#include "kafka/protocol/join_group.h"
#include "kafka/protocol/leave_group.h"
#include "kafka/protocol/list_groups.h"
#include "kafka/protocol/offset_commit.h"
#include "kafka/protocol/offset_fetch.h"
#include "kafka/protocol/sync_group.h"
#include "kafka/server/group.h"
#include "kafka/server/offset_store.h"

namespace mink::kafka {

struct GroupCoordinatorOptions {
  // Time for sessions, rebalances and commit timestamps. Not owned.
  const Clock* clock = SystemClock::Get();
  // Where committed offsets are durable (not owned); null keeps them in memory only.
  metadata::GroupOffsetStore* offsets = nullptr;
  // Whether a partition exists, for OffsetCommit (UNKNOWN_TOPIC_OR_PARTITION otherwise). Called
  // without the coordinator's lock. Null: every partition exists.
  std::function<bool(const std::string& topic, int32_t partition)> partition_exists;
  // Kafka's group.initial.rebalance.delay.ms: how long the first rebalance of an empty group
  // waits for more members.
  int64_t initial_rebalance_delay_ms = 3000;
  // Kafka's group.min.session.timeout.ms / group.max.session.timeout.ms.
  int32_t min_session_timeout_ms = 6000;
  int32_t max_session_timeout_ms = 1800000;
  // Kafka's offset.metadata.max.bytes (OFFSET_METADATA_TOO_LARGE above it).
  size_t max_offset_metadata_bytes = 4096;
  // An Empty group without members is forgotten after this long (its offsets stay).
  int64_t empty_group_retention_ms = 600000;
  // In a cluster: the fence of a group while this node coordinates it, nullopt while another
  // node does (ClusterView::GroupFence). A group's state belongs to one fence epoch: when the
  // epoch changes its members are sent away (NOT_COORDINATOR) and its offsets read afresh. Null:
  // this node alone coordinates every group.
  std::function<std::optional<metadata::OffsetFence>(const std::string& group_id)> fence_of;
  // How often the timer thread checks timeouts.
  std::chrono::milliseconds tick_interval{50};
  // Without the timer thread the owner calls Tick() (tests with a ManualClock).
  bool start_timer_thread = true;
};

// What the coordinator needs to know about the connection a request came on.
struct GroupRequestContext {
  int16_t version = 0;      // the request's API version
  std::string client_id;    // from the request header
  std::string client_host;  // shown by DescribeGroups, e.g. "/127.0.0.1"
};

class GroupCoordinator {
 public:
  explicit GroupCoordinator(GroupCoordinatorOptions options);
  ~GroupCoordinator();  // Stop()
  GroupCoordinator(const GroupCoordinator&) = delete;
  GroupCoordinator& operator=(const GroupCoordinator&) = delete;

  void JoinGroup(const JoinGroupRequest& request, const GroupRequestContext& context,
                 std::function<void(JoinGroupResponse)> done);
  void SyncGroup(const SyncGroupRequest& request, const GroupRequestContext& context,
                 std::function<void(SyncGroupResponse)> done);
  void Heartbeat(const HeartbeatRequest& request, const GroupRequestContext& context,
                 std::function<void(HeartbeatResponse)> done);
  void LeaveGroup(const LeaveGroupRequest& request, const GroupRequestContext& context,
                  std::function<void(LeaveGroupResponse)> done);
  void OffsetCommit(const OffsetCommitRequest& request, const GroupRequestContext& context,
                    std::function<void(OffsetCommitResponse)> done);
  void OffsetFetch(const OffsetFetchRequest& request, const GroupRequestContext& context,
                   std::function<void(OffsetFetchResponse)> done);
  void DescribeGroups(const DescribeGroupsRequest& request, const GroupRequestContext& context,
                      std::function<void(DescribeGroupsResponse)> done);
  void ListGroups(const ListGroupsRequest& request, const GroupRequestContext& context,
                  std::function<void(ListGroupsResponse)> done);
  // Forgets groups without members and their committed offsets: NON_EMPTY_GROUP for a group
  // with members, GROUP_ID_NOT_FOUND for one with neither members nor offsets.
  void DeleteGroups(const DeleteGroupsRequest& request, const GroupRequestContext& context,
                    std::function<void(DeleteGroupsResponse)> done);

  // The topic was deleted: forgets its committed offsets in every group.
  Status OnTopicDeleted(const std::string& topic);

  // Runs due timeouts now (session expiry, rebalance timeouts, the initial delay, forgetting idle
  // groups). The timer thread calls it every tick_interval.
  void Tick();
  // Stops the timer thread and answers parked requests with COORDINATOR_NOT_AVAILABLE; later
  // requests get the same. Idempotent.
  void Stop();

 private:
  // Runs deferred answers; the caller must not hold mutex_.
  static void Deliver(Outbox& out);
  std::string NewMemberId(const std::string& client_id);  // caller holds mutex_
  // The group's state if it belongs to the current fence epoch; caller holds mutex_.
  ClassicGroup* FindGroup(const std::string& group_id);
  // The fence of the group now: {nullopt, true} alone, {fence, true} while this node coordinates
  // it, {nullopt, false} while another node does.
  std::pair<std::optional<metadata::OffsetFence>, bool> FenceOf(const std::string& group_id) const;
  int64_t EpochOf(const std::string& group_id) const;  // -1: another node coordinates it
  // OffsetFetch for one group: its topics (all committed ones when `topics` is null).
  Result<std::vector<OffsetFetchResponse::Topic>> FetchOffsets(
      const std::string& group_id,
      const std::optional<std::vector<OffsetFetchRequest::Topic>>& topics);
  void TimerLoop();

  const GroupCoordinatorOptions options_;
  OffsetStore offsets_;

  std::mutex mutex_;  // guards everything below
  std::map<std::string, std::unique_ptr<ClassicGroup>> groups_;
  std::map<std::string, int64_t> group_epochs_;  // the fence epoch each group was made under
  std::mt19937_64 random_;
  bool stopped_ = false;
  std::condition_variable wake_;  // wakes the timer thread to stop

  std::mutex stop_mutex_;  // serialises joining the timer thread
  std::thread timer_;
};

}  // namespace mink::kafka
