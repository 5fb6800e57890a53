#include "kafka/server/group.h"

#include <algorithm>
#include <utility>

#include "base/log.h"

namespace mink::kafka {
namespace {

const std::string* MetadataFor(const std::vector<JoinGroupRequest::Protocol>& protocols,
                               const std::string& name) {
  for (const auto& p : protocols) {
    if (p.name == name) return &p.metadata;
  }
  return nullptr;
}

bool SameProtocols(const std::vector<JoinGroupRequest::Protocol>& a,
                   const std::vector<JoinGroupRequest::Protocol>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.name == y.name && x.metadata == y.metadata;
  });
}

JoinGroupResponse JoinError(const std::string& member_id, ErrorCode code) {
  JoinGroupResponse r;
  r.error_code = ToWire(code);
  r.generation_id = -1;
  r.member_id = member_id;
  return r;
}

SyncGroupResponse SyncError(ErrorCode code) {
  SyncGroupResponse r;
  r.error_code = ToWire(code);
  return r;
}

template <class Callback, class Response>
void Send(Outbox* out, Callback done, Response response) {
  if (!done) return;
  out->push_back([done = std::move(done), response = std::move(response)]() mutable {
    done(std::move(response));
  });
}

}  // namespace

std::string_view GroupStateName(GroupState state) {
  switch (state) {
    case GroupState::kEmpty:
      return "Empty";
    case GroupState::kPreparingRebalance:
      return "PreparingRebalance";
    case GroupState::kCompletingRebalance:
      return "CompletingRebalance";
    case GroupState::kStable:
      return "Stable";
    case GroupState::kDead:
      return "Dead";
  }
  return "Dead";
}

ClassicGroup::ClassicGroup(std::string group_id, int64_t initial_rebalance_delay_ms, int64_t now_ms)
    : group_id_(std::move(group_id)),
      initial_rebalance_delay_ms_(initial_rebalance_delay_ms),
      empty_since_ms_(now_ms) {}

ClassicGroup::Member* ClassicGroup::Find(const std::string& member_id) {
  for (Member& m : members_) {
    if (m.id == member_id) return &m;
  }
  return nullptr;
}

bool ClassicGroup::SupportsProtocols(const JoinArgs& args) const {
  if (args.protocol_type.empty() || args.protocols.empty()) return false;
  bool others = false;
  for (const Member& m : members_) others |= m.id != args.member_id;
  if (!others) return true;
  if (args.protocol_type != protocol_type_) return false;
  for (const auto& p : args.protocols) {
    bool everyone = std::all_of(members_.begin(), members_.end(), [&](const Member& m) {
      return m.id == args.member_id || MetadataFor(m.protocols, p.name) != nullptr;
    });
    if (everyone) return true;
  }
  return false;
}

void ClassicGroup::Join(JoinArgs args, std::string new_member_id, int64_t now_ms, JoinCallback done,
                        Outbox* out) {
  if (state_ == GroupState::kDead) {
    Send(out, std::move(done), JoinError(args.member_id, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  if (!SupportsProtocols(args)) {
    Send(out, std::move(done), JoinError(args.member_id, ErrorCode::kInconsistentGroupProtocol));
    return;
  }
  if (args.member_id.empty()) {
    if (args.require_known_member_id) {
      // The client retries at once with this id; if it never does, Tick forgets the id.
      pending_[new_member_id] = now_ms + args.session_timeout_ms;
      Send(out, std::move(done), JoinError(new_member_id, ErrorCode::kMemberIdRequired));
      return;
    }
    AddMemberAndRebalance(std::move(args), std::move(new_member_id), now_ms, std::move(done), out);
    return;
  }
  if (pending_.erase(args.member_id) > 0) {
    std::string id = args.member_id;
    AddMemberAndRebalance(std::move(args), std::move(id), now_ms, std::move(done), out);
    return;
  }
  Member* member = Find(args.member_id);
  if (member == nullptr) {
    Send(out, std::move(done), JoinError(args.member_id, ErrorCode::kUnknownMemberId));
    return;
  }
  switch (state_) {
    case GroupState::kPreparingRebalance:
      UpdateMemberAndRebalance(*member, std::move(args), now_ms, std::move(done), out);
      return;
    case GroupState::kCompletingRebalance:
    case GroupState::kStable: {
      // A member that has not changed gets its current generation again; a changed member, or
      // the leader of a stable group, starts a new rebalance.
      const bool unchanged = SameProtocols(member->protocols, args.protocols);
      const bool leader_rejoins = state_ == GroupState::kStable && member->id == leader_;
      if (unchanged && !leader_rejoins) {
        member->last_heartbeat_ms = now_ms;
        Send(out, std::move(done), JoinResponseFor(*member));
        return;
      }
      UpdateMemberAndRebalance(*member, std::move(args), now_ms, std::move(done), out);
      return;
    }
    case GroupState::kEmpty:
    case GroupState::kDead:
      break;
  }
  Send(out, std::move(done), JoinError(args.member_id, ErrorCode::kUnknownMemberId));
}

void ClassicGroup::AddMemberAndRebalance(JoinArgs args, std::string member_id, int64_t now_ms,
                                         JoinCallback done, Outbox* out) {
  if (members_.empty()) protocol_type_ = args.protocol_type;
  Member m;
  m.id = std::move(member_id);
  m.instance_id = std::move(args.group_instance_id);
  m.client_id = std::move(args.client_id);
  m.client_host = std::move(args.client_host);
  m.session_timeout_ms = args.session_timeout_ms;
  m.rebalance_timeout_ms = args.rebalance_timeout_ms;
  m.protocols = std::move(args.protocols);
  m.last_heartbeat_ms = now_ms;
  m.join = std::move(done);
  members_.push_back(std::move(m));
  if (state_ == GroupState::kPreparingRebalance && in_initial_delay_) {
    // Another new member: wait a little longer for the rest of the initial crowd.
    join_not_before_ms_ = std::min(now_ms + initial_rebalance_delay_ms_, rebalance_deadline_ms_);
  }
  if (state_ != GroupState::kPreparingRebalance) PrepareRebalance(now_ms, out);
  MaybeCompleteJoin(now_ms, out);
}

void ClassicGroup::UpdateMemberAndRebalance(Member& member, JoinArgs args, int64_t now_ms,
                                            JoinCallback done, Outbox* out) {
  // A second JoinGroup while one is parked (the client gave up on the first): the old one ends.
  Send(out, std::exchange(member.join, nullptr),
       JoinError(member.id, ErrorCode::kRebalanceInProgress));
  if (members_.size() == 1) protocol_type_ = args.protocol_type;
  member.instance_id = std::move(args.group_instance_id);
  member.client_id = std::move(args.client_id);
  member.client_host = std::move(args.client_host);
  member.session_timeout_ms = args.session_timeout_ms;
  member.rebalance_timeout_ms = args.rebalance_timeout_ms;
  member.protocols = std::move(args.protocols);
  member.last_heartbeat_ms = now_ms;
  member.join = std::move(done);
  if (state_ != GroupState::kPreparingRebalance) PrepareRebalance(now_ms, out);
  MaybeCompleteJoin(now_ms, out);
}

void ClassicGroup::PrepareRebalance(int64_t now_ms, Outbox* out) {
  if (state_ == GroupState::kCompletingRebalance) {
    for (Member& m : members_) {
      Send(out, std::exchange(m.sync, nullptr), SyncError(ErrorCode::kRebalanceInProgress));
    }
  }
  const bool from_empty = state_ == GroupState::kEmpty;
  state_ = GroupState::kPreparingRebalance;
  int64_t timeout = 0;
  for (const Member& m : members_) timeout = std::max<int64_t>(timeout, m.rebalance_timeout_ms);
  rebalance_deadline_ms_ = now_ms + timeout;
  in_initial_delay_ = from_empty && initial_rebalance_delay_ms_ > 0;
  join_not_before_ms_ = in_initial_delay_
                            ? std::min(now_ms + initial_rebalance_delay_ms_, rebalance_deadline_ms_)
                            : 0;
}

void ClassicGroup::MaybeCompleteJoin(int64_t now_ms, Outbox* out) {
  if (state_ != GroupState::kPreparingRebalance || now_ms < join_not_before_ms_) return;
  const bool all_joined =
      pending_.empty() &&
      std::all_of(members_.begin(), members_.end(), [](const Member& m) { return bool(m.join); });
  if (!all_joined && now_ms < rebalance_deadline_ms_) return;
  CompleteJoin(now_ms, out);
}

void ClassicGroup::CompleteJoin(int64_t now_ms, Outbox* out) {
  // Members that did not rejoin within the rebalance timeout are out of the group.
  std::erase_if(members_, [&](const Member& m) {
    if (m.join) return false;
    MINK_LOG_INFO(
        "kafka.groups",
        "member removed (did not rejoin within the rebalance timeout): group={} member={}",
        group_id_, m.id);
    return true;
  });
  if (Find(leader_) == nullptr) leader_.clear();
  ++generation_;
  in_initial_delay_ = false;
  join_not_before_ms_ = 0;
  for (Member& m : members_) m.assignment.clear();
  protocol_name_ = members_.empty() ? "" : SelectProtocol();
  if (protocol_name_.empty()) {
    // No members left (or, which joins rule out, no common protocol): the group is Empty.
    for (Member& m : members_) {
      Send(out, std::exchange(m.join, nullptr),
           JoinError(m.id, ErrorCode::kInconsistentGroupProtocol));
    }
    members_.clear();
    leader_.clear();
    state_ = GroupState::kEmpty;
    empty_since_ms_ = now_ms;
    return;
  }
  if (leader_.empty()) leader_ = members_.front().id;
  state_ = GroupState::kCompletingRebalance;
  MINK_LOG_INFO("kafka.groups",
                "rebalanced: group={} generation={} members={} protocol={} leader={}", group_id_,
                generation_, members_.size(), protocol_name_, leader_);
  // The leader has the rebalance timeout to send its assignments (see Tick).
  int64_t timeout = 0;
  for (const Member& m : members_) timeout = std::max<int64_t>(timeout, m.rebalance_timeout_ms);
  rebalance_deadline_ms_ = now_ms + timeout;
  for (Member& m : members_) {
    m.last_heartbeat_ms = now_ms;
    Send(out, std::exchange(m.join, nullptr), JoinResponseFor(m));
  }
}

std::string ClassicGroup::SelectProtocol() const {
  // Candidates: the protocols every member supports, in the first member's order of preference.
  std::vector<std::string> candidates;
  for (const auto& p : members_.front().protocols) {
    bool everyone = std::all_of(members_.begin(), members_.end(), [&](const Member& m) {
      return MetadataFor(m.protocols, p.name) != nullptr;
    });
    if (everyone) candidates.push_back(p.name);
  }
  // Each member votes for the candidate it lists first; most votes wins, ties by that order.
  std::map<std::string, int> votes;
  for (const Member& m : members_) {
    for (const auto& p : m.protocols) {
      if (std::find(candidates.begin(), candidates.end(), p.name) != candidates.end()) {
        ++votes[p.name];
        break;
      }
    }
  }
  std::string best;
  int best_votes = -1;
  for (const std::string& c : candidates) {
    if (votes[c] > best_votes) {
      best = c;
      best_votes = votes[c];
    }
  }
  return best;
}

JoinGroupResponse ClassicGroup::JoinResponseFor(const Member& member) const {
  JoinGroupResponse r;
  r.generation_id = generation_;
  r.protocol_name = protocol_name_;
  r.leader = leader_;
  r.member_id = member.id;
  if (member.id == leader_) {
    for (const Member& m : members_) {
      const std::string* metadata = MetadataFor(m.protocols, protocol_name_);
      r.members.push_back({m.id, m.instance_id, metadata ? *metadata : std::string()});
    }
  }
  return r;
}

void ClassicGroup::Sync(const SyncGroupRequest& request, int64_t now_ms, SyncCallback done,
                        Outbox* out) {
  Member* member = Find(request.member_id);
  if (state_ == GroupState::kDead) {
    Send(out, std::move(done), SyncError(ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  if (member == nullptr) {
    Send(out, std::move(done), SyncError(ErrorCode::kUnknownMemberId));
    return;
  }
  if (request.generation_id != generation_) {
    Send(out, std::move(done), SyncError(ErrorCode::kIllegalGeneration));
    return;
  }
  member->last_heartbeat_ms = now_ms;
  switch (state_) {
    case GroupState::kPreparingRebalance:
      Send(out, std::move(done), SyncError(ErrorCode::kRebalanceInProgress));
      return;
    case GroupState::kStable: {
      SyncGroupResponse r;
      r.assignment = member->assignment;
      Send(out, std::move(done), std::move(r));
      return;
    }
    case GroupState::kCompletingRebalance:
      Send(out, std::exchange(member->sync, nullptr), SyncError(ErrorCode::kRebalanceInProgress));
      member->sync = std::move(done);
      if (member->id != leader_) return;  // parked until the leader's assignments arrive
      for (Member& m : members_) {
        m.assignment.clear();
        for (const auto& a : request.assignments) {
          if (a.member_id == m.id) m.assignment = a.assignment;
        }
      }
      state_ = GroupState::kStable;
      for (Member& m : members_) {
        if (!m.sync) continue;
        m.last_heartbeat_ms = now_ms;
        SyncGroupResponse r;
        r.assignment = m.assignment;
        Send(out, std::exchange(m.sync, nullptr), std::move(r));
      }
      return;
    case GroupState::kEmpty:
    case GroupState::kDead:
      break;
  }
  Send(out, std::move(done), SyncError(ErrorCode::kUnknownMemberId));
}

ErrorCode ClassicGroup::Heartbeat(const HeartbeatRequest& request, int64_t now_ms) {
  if (state_ == GroupState::kDead) return ErrorCode::kCoordinatorNotAvailable;
  Member* member = Find(request.member_id);
  if (member == nullptr) return ErrorCode::kUnknownMemberId;
  if (request.generation_id != generation_) return ErrorCode::kIllegalGeneration;
  member->last_heartbeat_ms = now_ms;
  if (state_ == GroupState::kPreparingRebalance || state_ == GroupState::kCompletingRebalance) {
    return ErrorCode::kRebalanceInProgress;
  }
  return ErrorCode::kNone;
}

ErrorCode ClassicGroup::Leave(const std::string& member_id,
                              const std::optional<std::string>& instance_id, int64_t now_ms,
                              Outbox* out) {
  if (state_ == GroupState::kDead) return ErrorCode::kCoordinatorNotAvailable;
  std::string id = member_id;
  if (id.empty() && instance_id.has_value()) {
    for (const Member& m : members_) {
      if (m.instance_id == instance_id) id = m.id;
    }
  }
  if (pending_.erase(id) > 0) {
    MaybeCompleteJoin(now_ms, out);
    return ErrorCode::kNone;
  }
  if (id.empty() || Find(id) == nullptr) return ErrorCode::kUnknownMemberId;
  RemoveMember(id, ErrorCode::kUnknownMemberId, "left", now_ms, out);
  return ErrorCode::kNone;
}

void ClassicGroup::RemoveMember(const std::string& member_id, ErrorCode code,
                                std::string_view reason, int64_t now_ms, Outbox* out) {
  Member* member = Find(member_id);
  if (member == nullptr) return;
  MINK_LOG_INFO("kafka.groups", "member removed ({}): group={} member={} generation={}", reason,
                group_id_, member_id, generation_);
  Send(out, std::exchange(member->join, nullptr), JoinError(member_id, code));
  Send(out, std::exchange(member->sync, nullptr), SyncError(code));
  std::erase_if(members_, [&](const Member& m) { return m.id == member_id; });
  if (leader_ == member_id) leader_.clear();
  if (state_ == GroupState::kStable || state_ == GroupState::kCompletingRebalance) {
    PrepareRebalance(now_ms, out);
  }
  MaybeCompleteJoin(now_ms, out);
}

ErrorCode ClassicGroup::CheckCommit(int32_t generation_id, const std::string& member_id,
                                    int64_t now_ms) {
  if (state_ == GroupState::kDead) return ErrorCode::kCoordinatorNotAvailable;
  if (generation_id < 0 && member_id.empty() && state_ == GroupState::kEmpty) {
    return ErrorCode::kNone;  // a consumer that assigns partitions itself
  }
  if (state_ == GroupState::kCompletingRebalance) return ErrorCode::kRebalanceInProgress;
  Member* member = Find(member_id);
  if (member == nullptr) return ErrorCode::kUnknownMemberId;
  if (generation_id != generation_) return ErrorCode::kIllegalGeneration;
  member->last_heartbeat_ms = now_ms;
  return ErrorCode::kNone;
}

void ClassicGroup::Tick(int64_t now_ms, Outbox* out) {
  if (state_ == GroupState::kDead) return;
  std::erase_if(pending_, [&](const auto& p) { return p.second <= now_ms; });
  // Sessions: a member parked in JoinGroup or SyncGroup is alive; any other must have been heard
  // from within its session timeout.
  std::vector<std::pair<std::string, std::string_view>> expired;
  for (const Member& m : members_) {
    if (!m.join && !m.sync && m.last_heartbeat_ms + m.session_timeout_ms <= now_ms) {
      expired.emplace_back(m.id, "session timeout");
    }
  }
  // Rebalance timeout while CompletingRebalance: whoever has not sent SyncGroup is out.
  if (state_ == GroupState::kCompletingRebalance && now_ms >= rebalance_deadline_ms_) {
    for (const Member& m : members_) {
      if (!m.sync) expired.emplace_back(m.id, "no SyncGroup within the rebalance timeout");
    }
  }
  for (const auto& [id, reason] : expired) {
    RemoveMember(id, ErrorCode::kUnknownMemberId, reason, now_ms, out);
  }
  MaybeCompleteJoin(now_ms, out);
}

void ClassicGroup::Abort(ErrorCode code, Outbox* out) {
  for (Member& m : members_) {
    Send(out, std::exchange(m.join, nullptr), JoinError(m.id, code));
    Send(out, std::exchange(m.sync, nullptr), SyncError(code));
  }
  members_.clear();
  pending_.clear();
  leader_.clear();
  state_ = GroupState::kDead;
}

DescribeGroupsResponse::Group ClassicGroup::Describe() const {
  DescribeGroupsResponse::Group g;
  g.group_id = group_id_;
  g.group_state = std::string(GroupStateName(state_));
  g.protocol_type = protocol_type_;
  const bool stable = state_ == GroupState::kStable;
  if (stable) g.protocol_data = protocol_name_;
  for (const Member& m : members_) {
    DescribeGroupsResponse::Member d;
    d.member_id = m.id;
    d.group_instance_id = m.instance_id;
    d.client_id = m.client_id;
    d.client_host = m.client_host;
    if (stable) {
      const std::string* metadata = MetadataFor(m.protocols, protocol_name_);
      if (metadata != nullptr) d.member_metadata = *metadata;
      d.member_assignment = m.assignment;
    }
    g.members.push_back(std::move(d));
  }
  return g;
}

}  // namespace mink::kafka
