#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const RegisterNode& c) { return {{"node", c.node_id}, {"node_epoch", c.node_epoch}}; }

void FromJson(const json& j, RegisterNode* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
}

json ToJson(const ElectCoordinator& c) {
  return {{"node", c.node_id}, {"node_epoch", c.node_epoch}, {"lease_epoch", c.lease_epoch}};
}

json ToJson(const LeaveCluster& c) { return {{"node", c.node_id}, {"node_epoch", c.node_epoch}}; }

void FromJson(const json& j, LeaveCluster* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
}

void FromJson(const json& j, ElectCoordinator* c) {
  c->node_id = j.at("node").get<int32_t>();
  c->node_epoch = j.at("node_epoch").get<int64_t>();
  c->lease_epoch = j.at("lease_epoch").get<int64_t>();
}

}  // namespace mink::metadata
