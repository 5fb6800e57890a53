#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const RegisterNode& c) { return {{"node", c.node_id}, {"node_epoch", c.node_epoch}}; }

void FromJson(const json& j, RegisterNode* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
}

}  // namespace mink::metadata
