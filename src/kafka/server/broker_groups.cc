// Broker: the consumer-group APIs, answered by the GroupCoordinator. Requests come on the
// server's dispatch threads, which may block on the metadata database (OffsetCommit and friends);
// JoinGroup and SyncGroup park in the coordinator and answer later through `respond`.

#include "kafka/server/broker.h"
#include "kafka/server/group_coordinator.h"

namespace mink::kafka {

namespace {

// Wraps one typed answer of the coordinator into the broker's Respond.
template <typename ResponseT>
std::function<void(ResponseT)> Answer(Broker::Respond respond) {
  return [respond = std::move(respond)](ResponseT r) { respond(Response(std::move(r))); };
}

}  // namespace

void Broker::HandleGroup(const ParsedRequest& request, const ClientInfo& client, Respond respond) {
  const int16_t version = request.header.api_version;
  if (groups_ == nullptr) {
    respond(ErrorResponseFor(request.body, version, ErrorCode::kCoordinatorNotAvailable));
    return;
  }
  GroupRequestContext context{version, client.client_id, "/" + client.host};
  // A group is served by the node that coordinates it; the others send its clients there.
  const bool elsewhere = std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, OffsetFetchRequest>) {
          if (!body.groups.empty()) {
            for (const auto& g : body.groups) {
              if (!Coordinates(g.group_id)) return true;
            }
            return false;
          }
          return !Coordinates(body.group_id);
        } else if constexpr (requires { body.group_id; }) {
          return !Coordinates(body.group_id);
        } else {
          return false;
        }
      },
      request.body);
  if (elsewhere) {
    respond(ErrorResponseFor(request.body, version, ErrorCode::kNotCoordinator));
    return;
  }
  std::visit(
      [&](const auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, JoinGroupRequest>) {
          groups_->JoinGroup(body, context, Answer<JoinGroupResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, SyncGroupRequest>) {
          groups_->SyncGroup(body, context, Answer<SyncGroupResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, HeartbeatRequest>) {
          groups_->Heartbeat(body, context, Answer<HeartbeatResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, LeaveGroupRequest>) {
          groups_->LeaveGroup(body, context, Answer<LeaveGroupResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, OffsetCommitRequest>) {
          groups_->OffsetCommit(body, context, Answer<OffsetCommitResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, OffsetFetchRequest>) {
          groups_->OffsetFetch(body, context, Answer<OffsetFetchResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, DescribeGroupsRequest>) {
          groups_->DescribeGroups(body, context,
                                  Answer<DescribeGroupsResponse>(std::move(respond)));
        } else if constexpr (std::is_same_v<T, ListGroupsRequest>) {
          // Only the groups the user may see.
          groups_->ListGroups(body, context,
                              [this, user = client.user, respond = std::move(respond)](ListGroupsResponse r) {
                                std::erase_if(r.groups, [&](const auto& g) { return !MayDescribeGroup(user, g.group_id); });
                                respond(Response(std::move(r)));
                              });
        } else if constexpr (std::is_same_v<T, DeleteGroupsRequest>) {
          groups_->DeleteGroups(body, context, Answer<DeleteGroupsResponse>(std::move(respond)));
        } else {
          // An API this broker advertises but does not serve.
          respond(ErrorResponseFor(request.body, version, ErrorCode::kUnsupportedVersion));
        }
      },
      request.body);
}

}  // namespace mink::kafka
