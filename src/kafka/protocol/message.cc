#include "kafka/protocol/message.h"

#include <string>

namespace mink::kafka {

MessageContext BodyContext(ApiKey key, int16_t version, bool request) {
  MessageContext c;
  c.name = GetApi(key).name;
  c.version = version;
  c.kind = request ? MessageContext::Kind::kRequest : MessageContext::Kind::kResponse;
  c.flexible = IsFlexibleVersion(key, version);
  return c;
}

Status CheckVersion(ApiKey key, int16_t version, bool request) {
  if (IsSupportedVersion(key, version)) return Status::Ok();
  const ApiInfo& api = GetApi(key);
  return InvalidArgumentError(std::string("unsupported ") + api.name + " " +
                              (request ? "request" : "response") + " version " +
                              std::to_string(version) + " (supported " +
                              std::to_string(api.min_version) + "-" +
                              std::to_string(api.max_version) + ")");
}

}  // namespace mink::kafka
