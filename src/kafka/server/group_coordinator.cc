#include "kafka/server/group_coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "base/log.h"

namespace mink::kafka {
namespace {

constexpr char kLog[] = "kafka.groups";

// Kafka's AclOperation bits for what a group allows: READ (3), DELETE (6), DESCRIBE (8).
constexpr int32_t kGroupAuthorizedOperations = (1 << 3) | (1 << 6) | (1 << 8);

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

GroupCoordinatorOptions WithDefaults(GroupCoordinatorOptions options) {
  if (options.clock == nullptr) options.clock = SystemClock::Get();
  if (options.tick_interval <= std::chrono::milliseconds(0)) {
    options.tick_interval = std::chrono::milliseconds(50);
  }
  return options;
}

}  // namespace

GroupCoordinator::GroupCoordinator(GroupCoordinatorOptions options)
    : options_(WithDefaults(std::move(options))), offsets_(options_.offsets) {
  std::random_device device;
  std::seed_seq seed{device(), device(), device(), device()};
  random_.seed(seed);
  if (options_.start_timer_thread) timer_ = std::thread([this] { TimerLoop(); });
}

GroupCoordinator::~GroupCoordinator() { Stop(); }

void GroupCoordinator::Deliver(Outbox& out) {
  for (auto& send : out) send();
  out.clear();
}

std::string GroupCoordinator::NewMemberId(const std::string& client_id) {
  // "<client_id>-<random UUID>", as Kafka names members.
  uint8_t b[16];
  for (int i = 0; i < 16; i += 8) {
    uint64_t r = random_();
    for (int k = 0; k < 8; ++k) b[i + k] = static_cast<uint8_t>(r >> (8 * k));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // IETF variant
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", b[i]);
  }
  return client_id + "-" + hex;
}

std::pair<std::optional<metadata::OffsetFence>, bool> GroupCoordinator::FenceOf(
    const std::string& group_id) const {
  if (!options_.fence_of) return {std::nullopt, true};
  auto fence = options_.fence_of(group_id);
  const bool coordinates = fence.has_value();
  return {std::move(fence), coordinates};
}

int64_t GroupCoordinator::EpochOf(const std::string& group_id) const {
  auto [fence, coordinates] = FenceOf(group_id);
  return !coordinates ? -1 : fence ? fence->epoch : 0;
}

ClassicGroup* GroupCoordinator::FindGroup(const std::string& group_id) {
  auto it = groups_.find(group_id);
  if (it == groups_.end()) return nullptr;
  // A group of an earlier epoch is another coordinator's past: Tick sends its members away.
  auto epoch = group_epochs_.find(group_id);
  if (epoch == group_epochs_.end() || epoch->second != EpochOf(group_id)) return nullptr;
  return it->second.get();
}

void GroupCoordinator::JoinGroup(const JoinGroupRequest& request,
                                 const GroupRequestContext& context,
                                 std::function<void(JoinGroupResponse)> done) {
  ErrorCode error = ErrorCode::kNone;
  if (request.group_id.empty()) {
    error = ErrorCode::kInvalidGroupId;
  } else if (request.session_timeout_ms < options_.min_session_timeout_ms ||
             request.session_timeout_ms > options_.max_session_timeout_ms) {
    error = ErrorCode::kInvalidSessionTimeout;
  }
  Outbox out;
  if (error == ErrorCode::kNone) {
    JoinArgs args;
    args.member_id = request.member_id;
    args.group_instance_id = request.group_instance_id;
    args.client_id = context.client_id;
    args.client_host = context.client_host;
    args.session_timeout_ms = request.session_timeout_ms;
    // v0 has no rebalance timeout: Kafka uses the session timeout.
    args.rebalance_timeout_ms = context.version >= 1 && request.rebalance_timeout_ms > 0
                                    ? request.rebalance_timeout_ms
                                    : request.session_timeout_ms;
    args.protocol_type = request.protocol_type;
    args.protocols = request.protocols;
    args.require_known_member_id = context.version >= 4;
    std::lock_guard<std::mutex> lock(mutex_);
    ClassicGroup* group = FindGroup(request.group_id);
    const int64_t epoch = EpochOf(request.group_id);
    if (stopped_) {
      error = ErrorCode::kCoordinatorNotAvailable;
    } else if (epoch < 0) {
      error = ErrorCode::kNotCoordinator;
    } else if (group == nullptr && !request.member_id.empty()) {
      error = ErrorCode::kUnknownMemberId;  // e.g. the group was forgotten by a restart
    } else {
      if (group == nullptr) {
        auto stale = groups_.find(request.group_id);
        if (stale != groups_.end()) stale->second->Abort(ErrorCode::kNotCoordinator, &out);
        auto created = std::make_unique<ClassicGroup>(
            request.group_id, options_.initial_rebalance_delay_ms, options_.clock->NowMillis());
        group = created.get();
        groups_[request.group_id] = std::move(created);
        group_epochs_[request.group_id] = epoch;
      }
      std::string new_id = request.member_id.empty() ? NewMemberId(context.client_id) : "";
      group->Join(std::move(args), std::move(new_id), options_.clock->NowMillis(), std::move(done),
                  &out);
    }
  }
  if (error != ErrorCode::kNone) done(ErrorResponse(request, context.version, error));
  Deliver(out);
}

void GroupCoordinator::SyncGroup(const SyncGroupRequest& request,
                                 const GroupRequestContext& context,
                                 std::function<void(SyncGroupResponse)> done) {
  ErrorCode error = ErrorCode::kNone;
  Outbox out;
  if (request.group_id.empty()) {
    error = ErrorCode::kInvalidGroupId;
  } else {
    std::lock_guard<std::mutex> lock(mutex_);
    ClassicGroup* group = FindGroup(request.group_id);
    if (stopped_) {
      error = ErrorCode::kCoordinatorNotAvailable;
    } else if (group == nullptr) {
      error = ErrorCode::kUnknownMemberId;
    } else {
      group->Sync(request, options_.clock->NowMillis(), std::move(done), &out);
    }
  }
  if (error != ErrorCode::kNone) done(ErrorResponse(request, context.version, error));
  Deliver(out);
}

void GroupCoordinator::Heartbeat(const HeartbeatRequest& request,
                                 const GroupRequestContext& /*context*/,
                                 std::function<void(HeartbeatResponse)> done) {
  ErrorCode error = ErrorCode::kInvalidGroupId;
  if (!request.group_id.empty()) {
    std::lock_guard<std::mutex> lock(mutex_);
    ClassicGroup* group = FindGroup(request.group_id);
    if (stopped_) {
      error = ErrorCode::kCoordinatorNotAvailable;
    } else if (group == nullptr) {
      error = ErrorCode::kUnknownMemberId;
    } else {
      error = group->Heartbeat(request, options_.clock->NowMillis());
    }
  }
  HeartbeatResponse response;
  response.error_code = ToWire(error);
  done(std::move(response));
}

void GroupCoordinator::LeaveGroup(const LeaveGroupRequest& request,
                                  const GroupRequestContext& context,
                                  std::function<void(LeaveGroupResponse)> done) {
  if (request.group_id.empty()) {
    done(ErrorResponse(request, context.version, ErrorCode::kInvalidGroupId));
    return;
  }
  std::vector<LeaveGroupRequest::Member> leaving = request.members;
  if (context.version <= 2) leaving = {{request.member_id, std::nullopt}};
  LeaveGroupResponse response;
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ClassicGroup* group = FindGroup(request.group_id);
    const int64_t now = options_.clock->NowMillis();
    for (const auto& m : leaving) {
      ErrorCode code = ErrorCode::kUnknownMemberId;
      if (stopped_) {
        code = ErrorCode::kCoordinatorNotAvailable;
      } else if (group != nullptr) {
        code = group->Leave(m.member_id, m.group_instance_id, now, &out);
      }
      response.members.push_back({m.member_id, m.group_instance_id, ToWire(code)});
    }
  }
  Deliver(out);
  if (context.version <= 2) {
    response.error_code = response.members.front().error_code;
    response.members.clear();
  }
  done(std::move(response));
}

void GroupCoordinator::OffsetCommit(const OffsetCommitRequest& request,
                                    const GroupRequestContext& context,
                                    std::function<void(OffsetCommitResponse)> done) {
  const int64_t now = options_.clock->NowMillis();
  OffsetCommitResponse response;
  // Partitions that pass the topic and size checks, as (topic index, partition index).
  std::vector<std::pair<size_t, size_t>> accepted;
  std::vector<metadata::GroupOffset> batch;
  for (const auto& t : request.topics) {
    OffsetCommitResponse::Topic& rt = response.topics.emplace_back();
    rt.name = t.name;
    for (const auto& p : t.partitions) {
      ErrorCode code = ErrorCode::kNone;
      const size_t metadata_size = p.committed_metadata ? p.committed_metadata->size() : 0;
      if (options_.partition_exists && !options_.partition_exists(t.name, p.partition_index)) {
        code = ErrorCode::kUnknownTopicOrPartition;
      } else if (metadata_size > options_.max_offset_metadata_bytes) {
        code = ErrorCode::kOffsetMetadataTooLarge;
      } else {
        accepted.emplace_back(response.topics.size() - 1, rt.partitions.size());
        const bool v1_time = context.version == 1 && p.commit_timestamp >= 0;
        batch.push_back({t.name, p.partition_index, p.committed_offset, p.committed_leader_epoch,
                         p.committed_metadata.value_or(""), v1_time ? p.commit_timestamp : now});
      }
      rt.partitions.push_back({p.partition_index, ToWire(code)});
    }
  }
  ErrorCode group_code = ErrorCode::kNone;
  const auto [fence, coordinates] = FenceOf(request.group_id);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ClassicGroup* group = FindGroup(request.group_id);
    const int32_t generation = request.generation_id_or_member_epoch;
    if (stopped_) {
      group_code = ErrorCode::kCoordinatorNotAvailable;
    } else if (!coordinates) {
      group_code = ErrorCode::kNotCoordinator;
    } else if (group != nullptr) {
      group_code = group->CheckCommit(generation, request.member_id, now);
    } else if (generation >= 0) {
      group_code = ErrorCode::kIllegalGeneration;  // a generation of a group we do not know
    } else if (!request.member_id.empty()) {
      group_code = ErrorCode::kUnknownMemberId;
    }
  }
  if (group_code == ErrorCode::kNone && !batch.empty()) {
    // The fence is checked again in the commit's transaction: a coordinator that lost the
    // group since cannot commit over the new one.
    Status s = offsets_.Commit(request.group_id, batch, fence ? &*fence : nullptr);
    if (!s.ok()) {
      group_code = ErrorCodeFromStatus(s, ErrorContext::kGroup);
      MINK_LOG_WARN(kLog, "offset commit failed: {} group={} partitions={}", s.ToString(),
                    request.group_id, batch.size());
    }
  }
  if (group_code != ErrorCode::kNone) {
    for (auto [t, p] : accepted) response.topics[t].partitions[p].error_code = ToWire(group_code);
  }
  done(std::move(response));
}

Result<std::vector<OffsetFetchResponse::Topic>> GroupCoordinator::FetchOffsets(
    const std::string& group_id,
    const std::optional<std::vector<OffsetFetchRequest::Topic>>& topics) {
  const auto [fence, coordinates] = FenceOf(group_id);
  if (!coordinates) return AbortedError("node does not coordinate group " + group_id);
  MINK_ASSIGN_OR_RETURN(GroupOffsetMap committed,
                        offsets_.Fetch(group_id, fence ? &*fence : nullptr));
  auto partition = [](int32_t index, const metadata::GroupOffset* o) {
    OffsetFetchResponse::Partition p;
    p.partition_index = index;
    p.metadata = std::string();
    if (o != nullptr) {
      p.committed_offset = o->offset;
      p.committed_leader_epoch = o->leader_epoch;
      p.metadata = o->metadata;
    }
    return p;
  };
  std::vector<OffsetFetchResponse::Topic> out;
  if (!topics.has_value()) {  // every committed offset of the group
    for (const auto& [key, o] : committed) {
      if (out.empty() || out.back().name != key.first) out.push_back({key.first, {}});
      out.back().partitions.push_back(partition(key.second, &o));
    }
    return out;
  }
  for (const auto& t : *topics) {
    OffsetFetchResponse::Topic& rt = out.emplace_back();
    rt.name = t.name;
    for (int32_t index : t.partition_indexes) {
      auto it = committed.find({t.name, index});
      rt.partitions.push_back(partition(index, it == committed.end() ? nullptr : &it->second));
    }
  }
  return out;
}

void GroupCoordinator::OffsetFetch(const OffsetFetchRequest& request,
                                   const GroupRequestContext& context,
                                   std::function<void(OffsetFetchResponse)> done) {
  bool stopped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped = stopped_;
  }
  if (stopped) {
    done(ErrorResponse(request, context.version, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  OffsetFetchResponse response;
  if (context.version <= 7) {
    auto topics = FetchOffsets(request.group_id, request.topics);
    if (!topics.ok()) {
      MINK_LOG_WARN(kLog, "offset fetch failed: {} group={}", topics.status().ToString(),
                    request.group_id);
      done(ErrorResponse(request, context.version,
                         ErrorCodeFromStatus(topics.status(), ErrorContext::kGroup)));
      return;
    }
    response.topics = std::move(*topics);
  } else {
    for (const auto& g : request.groups) {
      OffsetFetchResponse::Group& rg = response.groups.emplace_back();
      rg.group_id = g.group_id;
      auto topics = FetchOffsets(g.group_id, g.topics);
      if (topics.ok()) {
        rg.topics = std::move(*topics);
      } else {
        MINK_LOG_WARN(kLog, "offset fetch failed: {} group={}", topics.status().ToString(),
                      g.group_id);
        rg.error_code = ToWire(ErrorCodeFromStatus(topics.status(), ErrorContext::kGroup));
      }
    }
  }
  done(std::move(response));
}

void GroupCoordinator::DescribeGroups(const DescribeGroupsRequest& request,
                                      const GroupRequestContext& context,
                                      std::function<void(DescribeGroupsResponse)> done) {
  DescribeGroupsResponse response;
  std::vector<bool> in_memory;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& id : request.groups) {
      ClassicGroup* group = stopped_ ? nullptr : FindGroup(id);
      DescribeGroupsResponse::Group g;
      if (group != nullptr) g = group->Describe();
      g.group_id = id;
      if (stopped_) g.error_code = ToWire(ErrorCode::kCoordinatorNotAvailable);
      response.groups.push_back(std::move(g));
      in_memory.push_back(group != nullptr || stopped_);
    }
  }
  for (size_t i = 0; i < response.groups.size(); ++i) {
    DescribeGroupsResponse::Group& g = response.groups[i];
    if (context.version >= 3 && request.include_authorized_operations) {
      g.authorized_operations = kGroupAuthorizedOperations;
    }
    if (in_memory[i]) continue;
    // Not active here: Empty if it has committed offsets, else Dead (Kafka's answer for a
    // group it does not know).
    const auto [fence, coordinates] = FenceOf(g.group_id);
    auto committed = coordinates ? offsets_.Fetch(g.group_id, fence ? &*fence : nullptr)
                                 : Result<GroupOffsetMap>(AbortedError("not the coordinator"));
    if (!committed.ok()) {
      g.error_code = ToWire(ErrorCodeFromStatus(committed.status(), ErrorContext::kGroup));
    }
    const bool has_offsets = committed.ok() && !committed->empty();
    g.group_state =
        std::string(GroupStateName(has_offsets ? GroupState::kEmpty : GroupState::kDead));
  }
  done(std::move(response));
}

void GroupCoordinator::ListGroups(const ListGroupsRequest& request,
                                  const GroupRequestContext& context,
                                  std::function<void(ListGroupsResponse)> done) {
  ListGroupsResponse response;
  std::set<std::string> active;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) response.error_code = ToWire(ErrorCode::kCoordinatorNotAvailable);
    for (const auto& [id, group] : groups_) {
      if (group->state() == GroupState::kDead || FindGroup(id) == nullptr) continue;
      active.insert(id);
      response.groups.push_back(
          {id, group->protocol_type(), std::string(GroupStateName(group->state()))});
    }
  }
  if (response.error_code == 0) {
    // Groups that are not active here but have committed offsets are Empty groups.
    auto stored = offsets_.Groups();
    if (stored.ok()) {
      for (const std::string& id : *stored) {
        if (!active.contains(id)) {
          response.groups.push_back({id, "", std::string(GroupStateName(GroupState::kEmpty))});
        }
      }
    } else {
      MINK_LOG_WARN(kLog, "listing groups with offsets failed: {}", stored.status().ToString());
      response.error_code = ToWire(ErrorCodeFromStatus(stored.status(), ErrorContext::kGroup));
    }
  }
  if (context.version >= 4 && !request.states_filter.empty()) {
    std::erase_if(response.groups, [&](const ListGroupsResponse::Group& g) {
      return std::none_of(request.states_filter.begin(), request.states_filter.end(),
                          [&](const std::string& s) { return EqualsIgnoreCase(s, g.group_state); });
    });
  }
  std::sort(response.groups.begin(), response.groups.end(),
            [](const auto& a, const auto& b) { return a.group_id < b.group_id; });
  done(std::move(response));
}

void GroupCoordinator::DeleteGroups(const DeleteGroupsRequest& request,
                                    const GroupRequestContext& /*context*/,
                                    std::function<void(DeleteGroupsResponse)> done) {
  DeleteGroupsResponse response;
  for (const std::string& id : request.groups_names) {
    ErrorCode error = ErrorCode::kNone;
    bool was_active = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ClassicGroup* group = stopped_ ? nullptr : FindGroup(id);
      if (stopped_) {
        error = ErrorCode::kCoordinatorNotAvailable;
      } else if (id.empty()) {
        error = ErrorCode::kInvalidGroupId;
      } else if (group != nullptr && !group->idle()) {
        error = ErrorCode::kNonEmptyGroup;
      } else if (group != nullptr) {
        groups_.erase(id);
        group_epochs_.erase(id);
        was_active = true;
      }
    }
    const auto [fence, coordinates] = FenceOf(id);
    if (error == ErrorCode::kNone && !coordinates) error = ErrorCode::kNotCoordinator;
    if (error == ErrorCode::kNone) {
      auto committed = offsets_.Fetch(id, fence ? &*fence : nullptr);
      Status s = committed.ok() ? offsets_.DeleteGroup(id, fence ? &*fence : nullptr)
                                : committed.status();
      if (!s.ok()) {
        error = ErrorCodeFromStatus(s, ErrorContext::kGroup);
      } else if (!was_active && committed->empty()) {
        error = ErrorCode::kGroupIdNotFound;
      } else {
        MINK_LOG_INFO(kLog, "group {} deleted with its {} committed offset(s)", id,
                      committed->size());
      }
    }
    response.results.push_back({id, ToWire(error)});
  }
  done(std::move(response));
}

Status GroupCoordinator::OnTopicDeleted(const std::string& topic) {
  return offsets_.DeleteTopic(topic);
}

void GroupCoordinator::Tick() {
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopped_) return;
    const int64_t now = options_.clock->NowMillis();
    for (auto it = groups_.begin(); it != groups_.end();) {
      ClassicGroup& group = *it->second;
      if (FindGroup(it->first) == nullptr) {
        // Another node coordinates the group now, or this one again at a newer epoch: its
        // members are sent to find the coordinator and rejoin.
        group.Abort(ErrorCode::kNotCoordinator, &out);
        group_epochs_.erase(it->first);
        it = groups_.erase(it);
        continue;
      }
      group.Tick(now, &out);
      if (group.idle() && now - group.empty_since_ms() >= options_.empty_group_retention_ms) {
        group_epochs_.erase(it->first);
        it = groups_.erase(it);
      } else {
        ++it;
      }
    }
  }
  Deliver(out);
}

void GroupCoordinator::TimerLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopped_) {
    wake_.wait_for(lock, options_.tick_interval);
    if (stopped_) break;
    lock.unlock();
    Tick();
    lock.lock();
  }
}

void GroupCoordinator::Stop() {
  Outbox out;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopped_) {
      stopped_ = true;
      for (auto& [id, group] : groups_) group->Abort(ErrorCode::kCoordinatorNotAvailable, &out);
      groups_.clear();
      group_epochs_.clear();
    }
  }
  wake_.notify_all();
  {
    std::lock_guard<std::mutex> lock(stop_mutex_);
    if (timer_.joinable()) timer_.join();
  }
  Deliver(out);
}

}  // namespace mink::kafka
