// Broker: the consumer-group APIs, answered by the GroupCoordinator.

#include "kafka/server/broker.h"

namespace mink::kafka {

void Broker::HandleGroup(const ParsedRequest& request, const ClientInfo& client, Respond respond) {
  (void)client;
  // The group coordinator is wired in once it lands; until then every group request says the
  // coordinator is not available (clients retry).
  respond(ErrorResponseFor(request.body, request.header.api_version,
                           ErrorCode::kCoordinatorNotAvailable));
}

}  // namespace mink::kafka
