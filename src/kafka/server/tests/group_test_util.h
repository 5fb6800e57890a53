#pragma once
// Helpers for the consumer-group tests: a GroupCoordinator on a ManualClock (no timer thread;
// tests call Tick), replies that can be waited for, and short ways to send each request.

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "kafka/server/group_coordinator.h"

namespace mink::kafka::testing {

inline int16_t E(ErrorCode code) { return ToWire(code); }

// The answer to one request, which may come later from another thread.
template <class R>
class Reply : public std::enable_shared_from_this<Reply<R>> {
 public:
  std::function<void(R)> Callback() {
    return [self = this->shared_from_this()](R r) {
      std::lock_guard<std::mutex> lock(self->mutex_);
      self->values_.push_back(std::move(r));
      self->cv_.notify_all();
    };
  }
  bool ready() {
    std::lock_guard<std::mutex> lock(mutex_);
    return !values_.empty();
  }
  int calls() {
    std::lock_guard<std::mutex> lock(mutex_);
    return static_cast<int>(values_.size());
  }
  // The answer; an empty R (and a test failure) if there is none.
  R get() {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(values_.size(), 1u) << "expected exactly one answer";
    return values_.empty() ? R{} : values_.back();
  }
  // Waits (real time) for the answer.
  R Wait(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait_for(lock, timeout, [&] { return !values_.empty(); });
    EXPECT_FALSE(values_.empty()) << "no answer within " << timeout.count() << " ms";
    return values_.empty() ? R{} : values_.back();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<R> values_;
};

template <class R>
using ReplyPtr = std::shared_ptr<Reply<R>>;

// Protocols named `names`, each with metadata "<name>:<tag>".
inline std::vector<JoinGroupRequest::Protocol> Protocols(const std::vector<std::string>& names,
                                                         const std::string& tag = "m") {
  std::vector<JoinGroupRequest::Protocol> out;
  for (const std::string& n : names) out.push_back({n, n + ":" + tag});
  return out;
}

class GroupTest : public ::testing::Test {
 protected:
  // Partitions that exist: orders 0-2, events 0.
  GroupCoordinatorOptions Options(metadata::GroupOffsetStore* store = nullptr) {
    GroupCoordinatorOptions o;
    o.clock = &clock_;
    o.offsets = store;
    o.partition_exists = [](const std::string& topic, int32_t partition) {
      return (topic == "orders" && partition >= 0 && partition < 3) ||
             (topic == "events" && partition == 0);
    };
    o.initial_rebalance_delay_ms = 100;
    o.start_timer_thread = false;
    return o;
  }
  void Start(GroupCoordinatorOptions options) {
    coord_ = std::make_unique<GroupCoordinator>(std::move(options));
  }
  void SetUp() override { Start(Options()); }

  void Advance(int64_t ms) {
    clock_.Advance(ms);
    coord_->Tick();
  }

  static GroupRequestContext Ctx(int16_t version, const std::string& client_id = "client-1",
                                 const std::string& host = "/127.0.0.1") {
    return GroupRequestContext{version, client_id, host};
  }

  struct JoinOpts {
    std::vector<JoinGroupRequest::Protocol> protocols = Protocols({"range"});
    int16_t version = 3;
    std::string client_id = "client-1";
    int32_t session_timeout_ms = 10000;
    int32_t rebalance_timeout_ms = 30000;
    std::string protocol_type = "consumer";
  };
  ReplyPtr<JoinGroupResponse> Join(const std::string& group, const std::string& member_id,
                                   JoinOpts opts) {
    JoinGroupRequest r;
    r.group_id = group;
    r.member_id = member_id;
    r.session_timeout_ms = opts.session_timeout_ms;
    r.rebalance_timeout_ms = opts.rebalance_timeout_ms;
    r.protocol_type = opts.protocol_type;
    r.protocols = opts.protocols;
    auto reply = std::make_shared<Reply<JoinGroupResponse>>();
    coord_->JoinGroup(r, Ctx(opts.version, opts.client_id, "/host-" + opts.client_id),
                      reply->Callback());
    return reply;
  }
  ReplyPtr<JoinGroupResponse> Join(const std::string& group, const std::string& member_id) {
    return Join(group, member_id, JoinOpts{});
  }

  ReplyPtr<SyncGroupResponse> Sync(const std::string& group, int32_t generation,
                                   const std::string& member_id,
                                   std::vector<SyncGroupRequest::Assignment> assignments = {}) {
    SyncGroupRequest r;
    r.group_id = group;
    r.generation_id = generation;
    r.member_id = member_id;
    r.assignments = std::move(assignments);
    auto reply = std::make_shared<Reply<SyncGroupResponse>>();
    coord_->SyncGroup(r, Ctx(3), reply->Callback());
    return reply;
  }

  int16_t Heartbeat(const std::string& group, int32_t generation, const std::string& member_id) {
    HeartbeatRequest r;
    r.group_id = group;
    r.generation_id = generation;
    r.member_id = member_id;
    auto reply = std::make_shared<Reply<HeartbeatResponse>>();
    coord_->Heartbeat(r, Ctx(3), reply->Callback());
    return reply->get().error_code;
  }

  LeaveGroupResponse Leave(const std::string& group, const std::string& member_id,
                           int16_t version = 3) {
    LeaveGroupRequest r;
    r.group_id = group;
    if (version <= 2) {
      r.member_id = member_id;
    } else {
      r.members.push_back({member_id, std::nullopt});
    }
    auto reply = std::make_shared<Reply<LeaveGroupResponse>>();
    coord_->LeaveGroup(r, Ctx(version), reply->Callback());
    return reply->get();
  }

  // Commits {topic, partition, offset} triples; returns the per-partition codes in order.
  std::vector<int16_t> Commit(const std::string& group, int32_t generation,
                              const std::string& member_id,
                              const std::vector<std::tuple<std::string, int32_t, int64_t>>& offsets,
                              int16_t version = 7) {
    OffsetCommitRequest r;
    r.group_id = group;
    r.generation_id_or_member_epoch = generation;
    r.member_id = member_id;
    for (const auto& [topic, partition, offset] : offsets) {
      if (r.topics.empty() || r.topics.back().name != topic) r.topics.push_back({topic, {}});
      OffsetCommitRequest::Partition p;
      p.partition_index = partition;
      p.committed_offset = offset;
      p.committed_leader_epoch = 5;
      p.committed_metadata = "meta-" + std::to_string(offset);
      r.topics.back().partitions.push_back(p);
    }
    auto reply = std::make_shared<Reply<OffsetCommitResponse>>();
    coord_->OffsetCommit(r, Ctx(version), reply->Callback());
    std::vector<int16_t> codes;
    for (const auto& t : reply->get().topics) {
      for (const auto& p : t.partitions) codes.push_back(p.error_code);
    }
    return codes;
  }

  // OffsetFetch v5 of `topics` (null: all), as "topic/partition=offset" strings.
  std::vector<std::string> Fetch(
      const std::string& group,
      std::optional<std::vector<OffsetFetchRequest::Topic>> topics = std::nullopt) {
    OffsetFetchRequest r;
    r.group_id = group;
    r.topics = std::move(topics);
    auto reply = std::make_shared<Reply<OffsetFetchResponse>>();
    coord_->OffsetFetch(r, Ctx(5), reply->Callback());
    OffsetFetchResponse response = reply->get();
    EXPECT_EQ(response.error_code, 0);
    std::vector<std::string> out;
    for (const auto& t : response.topics) {
      for (const auto& p : t.partitions) {
        EXPECT_EQ(p.error_code, 0);
        out.push_back(t.name + "/" + std::to_string(p.partition_index) + "=" +
                      std::to_string(p.committed_offset));
      }
    }
    return out;
  }

  DescribeGroupsResponse::Group Describe(const std::string& group) {
    DescribeGroupsRequest r;
    r.groups = {group};
    auto reply = std::make_shared<Reply<DescribeGroupsResponse>>();
    coord_->DescribeGroups(r, Ctx(4), reply->Callback());
    auto response = reply->get();
    EXPECT_EQ(response.groups.size(), 1u);
    return response.groups.empty() ? DescribeGroupsResponse::Group{} : response.groups[0];
  }

  // A Stable group of `n` members joined with JoinGroup v3 (client ids client-1..n); returns
  // the member ids in join order (the first is the leader) and sets *generation.
  std::vector<std::string> FormGroup(const std::string& group, int n, int32_t* generation) {
    std::vector<ReplyPtr<JoinGroupResponse>> joins;
    for (int i = 1; i <= n; ++i) {
      JoinOpts opts;
      opts.client_id = "client-" + std::to_string(i);
      opts.protocols = Protocols({"range"}, std::to_string(i));
      joins.push_back(Join(group, "", opts));
    }
    Advance(100);  // the initial rebalance delay
    std::vector<std::string> ids;
    for (auto& j : joins) {
      JoinGroupResponse r = j->get();
      EXPECT_EQ(r.error_code, 0);
      ids.push_back(r.member_id);
      *generation = r.generation_id;
    }
    std::vector<ReplyPtr<SyncGroupResponse>> syncs;
    for (int i = n - 1; i >= 1; --i) syncs.push_back(Sync(group, *generation, ids[i]));
    std::vector<SyncGroupRequest::Assignment> assignments;
    for (const std::string& id : ids) assignments.push_back({id, "assignment-of-" + id});
    syncs.push_back(Sync(group, *generation, ids[0], assignments));
    for (auto& s : syncs) EXPECT_EQ(s->get().error_code, 0);
    return ids;
  }

  ManualClock clock_;
  std::unique_ptr<GroupCoordinator> coord_;
};

}  // namespace mink::kafka::testing
