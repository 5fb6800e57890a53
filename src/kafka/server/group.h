#pragma once
// ClassicGroup: one consumer group of Kafka's classic rebalance protocol (docs/kafka.md) —
// its members, its state machine (Empty, PreparingRebalance, CompletingRebalance, Stable, Dead)
// and its generations. Offsets are not here (offset_store.h).
//
// Not thread-safe: GroupCoordinator holds its lock around every call. Time comes in as `now_ms`
// arguments. A JoinGroup or SyncGroup that has to wait is parked in its member; answers to parked
// requests are never sent from here but put into an Outbox, which the coordinator runs after it
// has released its lock.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kafka/protocol/describe_groups.h"
#include "kafka/protocol/errors.h"
#include "kafka/protocol/heartbeat.h"
#include "kafka/protocol/join_group.h"
#include "kafka/protocol/sync_group.h"

namespace mink::kafka {

enum class GroupState : uint8_t {
  kEmpty,
  kPreparingRebalance,
  kCompletingRebalance,
  kStable,
  kDead,
};

// "Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead" (DescribeGroups and
// ListGroups spell them so).
std::string_view GroupStateName(GroupState state);

using JoinCallback = std::function<void(JoinGroupResponse)>;
using SyncCallback = std::function<void(SyncGroupResponse)>;
// Answers to send once the coordinator's lock is released.
using Outbox = std::vector<std::function<void()>>;

// A JoinGroup request as the group sees it (validated and defaulted by the coordinator).
struct JoinArgs {
  std::string member_id;  // empty: a new member
  std::optional<std::string> group_instance_id;
  std::string client_id;
  std::string client_host;
  int32_t session_timeout_ms = 0;
  int32_t rebalance_timeout_ms = 0;
  std::string protocol_type;
  std::vector<JoinGroupRequest::Protocol> protocols;
  // JoinGroup v4+: a new member first gets MEMBER_ID_REQUIRED with its id, and joins with it.
  bool require_known_member_id = false;
};

class ClassicGroup {
 public:
  // `initial_rebalance_delay_ms`: how long the first rebalance of an empty group waits for more
  // members (each new member restarts the wait, up to the rebalance timeout).
  ClassicGroup(std::string group_id, int64_t initial_rebalance_delay_ms, int64_t now_ms);

  // JoinGroup. `new_member_id` is the id given to a member that joins without one. `done` is
  // called (through `out`) when the join completes or fails.
  void Join(JoinArgs args, std::string new_member_id, int64_t now_ms, JoinCallback done,
            Outbox* out);
  // SyncGroup. Followers wait for the leader's assignments; `done` goes through `out`.
  void Sync(const SyncGroupRequest& request, int64_t now_ms, SyncCallback done, Outbox* out);
  // Heartbeat: NONE, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION or REBALANCE_IN_PROGRESS.
  ErrorCode Heartbeat(const HeartbeatRequest& request, int64_t now_ms);
  // LeaveGroup of one member, named by member id or (when that is empty) by instance id.
  ErrorCode Leave(const std::string& member_id, const std::optional<std::string>& instance_id,
                  int64_t now_ms, Outbox* out);
  // Whether an OffsetCommit with this generation and member may be written. A commit with
  // generation < 0 and no member (a "simple" consumer) is allowed while the group is Empty.
  ErrorCode CheckCommit(int32_t generation_id, const std::string& member_id, int64_t now_ms);
  // Expires members whose session timed out and MEMBER_ID_REQUIRED ids never used, ends the
  // initial delay, enforces the rebalance timeout while members rejoin or sync.
  void Tick(int64_t now_ms, Outbox* out);
  // Answers every parked request with `code`, forgets every member and becomes Dead (shutdown).
  void Abort(ErrorCode code, Outbox* out);

  // DescribeGroups: protocol and member metadata/assignments only when Stable (as Kafka).
  DescribeGroupsResponse::Group Describe() const;

  const std::string& group_id() const { return group_id_; }
  GroupState state() const { return state_; }
  int32_t generation() const { return generation_; }
  const std::string& protocol_type() const { return protocol_type_; }
  const std::string& protocol_name() const { return protocol_name_; }
  const std::string& leader() const { return leader_; }
  size_t member_count() const { return members_.size(); }
  // Empty with no members or pending member ids since `empty_since_ms()`.
  bool idle() const { return state_ == GroupState::kEmpty && members_.empty() && pending_.empty(); }
  int64_t empty_since_ms() const { return empty_since_ms_; }

 private:
  struct Member {
    std::string id;
    std::optional<std::string> instance_id;
    std::string client_id;
    std::string client_host;
    int32_t session_timeout_ms = 0;
    int32_t rebalance_timeout_ms = 0;
    std::vector<JoinGroupRequest::Protocol> protocols;
    std::string assignment;
    int64_t last_heartbeat_ms = 0;
    JoinCallback join;  // a parked JoinGroup
    SyncCallback sync;  // a parked SyncGroup
  };

  Member* Find(const std::string& member_id);
  // Whether a member with these protocols may join: the type matches and one protocol is
  // supported by every other member (any non-empty set when there are no others).
  bool SupportsProtocols(const JoinArgs& args) const;
  void AddMemberAndRebalance(JoinArgs args, std::string member_id, int64_t now_ms,
                             JoinCallback done, Outbox* out);
  void UpdateMemberAndRebalance(Member& member, JoinArgs args, int64_t now_ms, JoinCallback done,
                                Outbox* out);
  // Moves to PreparingRebalance (answering parked SyncGroups with REBALANCE_IN_PROGRESS).
  void PrepareRebalance(int64_t now_ms, Outbox* out);
  // Completes the join once every member rejoined (after the initial delay) or the rebalance
  // timeout passed.
  void MaybeCompleteJoin(int64_t now_ms, Outbox* out);
  void CompleteJoin(int64_t now_ms, Outbox* out);
  // Removes a member, answering its parked requests with `code`, and rebalances.
  void RemoveMember(const std::string& member_id, ErrorCode code, std::string_view reason,
                    int64_t now_ms, Outbox* out);
  // The protocol every member supports that most members prefer; "" if there is none.
  std::string SelectProtocol() const;
  JoinGroupResponse JoinResponseFor(const Member& member) const;

  const std::string group_id_;
  const int64_t initial_rebalance_delay_ms_;
  GroupState state_ = GroupState::kEmpty;
  int32_t generation_ = 0;
  std::string protocol_type_;  // kept while the group is Empty, as Kafka does
  std::string protocol_name_;  // chosen for the current generation
  std::string leader_;
  std::vector<Member> members_;             // in join order; the first becomes leader if none is
  std::map<std::string, int64_t> pending_;  // ids sent with MEMBER_ID_REQUIRED -> expiry
  int64_t rebalance_deadline_ms_ = 0;       // PreparingRebalance / CompletingRebalance time limit
  int64_t join_not_before_ms_ = 0;          // end of the initial delay
  bool in_initial_delay_ = false;
  int64_t empty_since_ms_ = 0;
};

}  // namespace mink::kafka
