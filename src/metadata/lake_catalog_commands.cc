#include "metadata/commands_json.h"

namespace mink::metadata {
namespace {

json Outcome(const IdempotentOutcome& o) {
  return {{"key", o.key}, {"status", o.status}, {"body", o.body}};
}

IdempotentOutcome OutcomeOf(const json& j) {
  const json& o = j.at("outcome");
  return {o.at("key").get<std::string>(), o.at("status").get<int32_t>(),
          o.at("body").get<std::string>()};
}

}  // namespace

json ToJson(const CreateLakeNamespace& c) {
  return {{"namespace", c.name}, {"properties", c.properties}, {"outcome", Outcome(c.outcome)}};
}

void FromJson(const json& j, CreateLakeNamespace* c) {
  c->name = j.at("namespace").get<NamespaceName>();
  c->properties = j.at("properties").get<std::map<std::string, std::string>>();
  c->outcome = OutcomeOf(j);
}

json ToJson(const DropLakeNamespace& c) {
  return {{"namespace", c.name}, {"outcome", Outcome(c.outcome)}};
}

void FromJson(const json& j, DropLakeNamespace* c) {
  c->name = j.at("namespace").get<NamespaceName>();
  c->outcome = OutcomeOf(j);
}

json ToJson(const UpdateLakeNamespace& c) {
  return {{"namespace", c.name},
          {"removals", c.removals},
          {"updates", c.updates},
          {"outcome", Outcome(c.outcome)}};
}

void FromJson(const json& j, UpdateLakeNamespace* c) {
  c->name = j.at("namespace").get<NamespaceName>();
  c->removals = j.at("removals").get<std::vector<std::string>>();
  c->updates = j.at("updates").get<std::map<std::string, std::string>>();
  c->outcome = OutcomeOf(j);
}

json ToJson(const CommitLakeCatalog& c) {
  json moves = json::array();
  for (const auto& m : c.moves) {
    moves.push_back({{"namespace", m.space},
                     {"name", m.name},
                     {"expected", m.expected},
                     {"location", m.location}});
  }
  return {{"moves", moves}, {"outcome", Outcome(c.outcome)}};
}

void FromJson(const json& j, CommitLakeCatalog* c) {
  for (const auto& m : j.at("moves")) {
    c->moves.push_back({m.at("namespace").get<NamespaceName>(), m.at("name").get<std::string>(),
                        m.at("expected").get<std::string>(), m.at("location").get<std::string>()});
  }
  c->outcome = OutcomeOf(j);
}

json ToJson(const RenameLakeTable& c) {
  return {{"from_namespace", c.from_space}, {"from", c.from_name},
          {"to_namespace", c.to_space},     {"to", c.to_name},
          {"outcome", Outcome(c.outcome)}};
}

void FromJson(const json& j, RenameLakeTable* c) {
  c->from_space = j.at("from_namespace").get<NamespaceName>();
  c->from_name = j.at("from").get<std::string>();
  c->to_space = j.at("to_namespace").get<NamespaceName>();
  c->to_name = j.at("to").get<std::string>();
  c->outcome = OutcomeOf(j);
}

}  // namespace mink::metadata
