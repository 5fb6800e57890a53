#include "metadata/commands_json.h"

namespace mink::metadata {

json ToJson(const CreateContinuousObject& c) {
  json j = {{"name", c.name}, {"kind", c.kind}, {"statement", c.statement}, {"definition", c.definition},
            {"inputs", c.inputs}};
  if (c.replace) j["replace"] = true;
  return j;
}

void FromJson(const json& j, CreateContinuousObject* c) {
  c->name = j.at("name").get<std::string>();
  c->kind = j.at("kind").get<std::string>();
  c->statement = j.at("statement").get<std::string>();
  c->definition = j.at("definition").get<std::string>();
  c->inputs = j.at("inputs").get<std::vector<std::string>>();
  c->replace = j.value("replace", false);
}

json ToJson(const DropContinuousObject& c) { return {{"name", c.name}, {"kind", c.kind}}; }

void FromJson(const json& j, DropContinuousObject* c) {
  c->name = j.at("name").get<std::string>();
  c->kind = j.at("kind").get<std::string>();
}

json ToJson(const CommitContinuousProgress& c) {
  return {{"name", c.name}, {"epoch", c.epoch}, {"progress", c.progress}};
}

void FromJson(const json& j, CommitContinuousProgress* c) {
  c->name = j.at("name").get<std::string>();
  c->epoch = j.at("epoch").get<int64_t>();
  c->progress = j.at("progress").get<std::string>();
}

}  // namespace mink::metadata
