// The catalog objects of continuous SQL (continuous_commands.h).
#include "metadata/state.h"

namespace mink::metadata {

Status State::CheckCommand(const CreateContinuousObject& c) const {
  if (c.name.empty() || c.name.size() > 249) return InvalidArgumentError("a name is 1-249 characters");
  for (unsigned char ch : c.name) {
    if (ch < 0x20 || ch == 0x7f) return InvalidArgumentError("name '" + c.name + "' has a control character");
  }
  if (c.kind != "source" && c.kind != "stream" && c.kind != "view" && c.kind != "sink") {
    return InvalidArgumentError("'" + c.kind + "' is not a kind of continuous object");
  }
  if (auto it = continuous_.find(c.name); it != continuous_.end()) {
    if (!c.replace) return AlreadyExistsError(it->second.kind + " " + c.name + " already exists");
    if (it->second.kind != c.kind) {
      return InvalidArgumentError(c.name + " is a " + it->second.kind + ", not a " + c.kind + ": drop it first");
    }
  }
  for (const auto& input : c.inputs) {
    if (input == c.name) return InvalidArgumentError(c.name + " reads itself");
    if (!continuous_.count(input)) return NotFoundError(c.name + " reads " + input + ", which does not exist");
  }
  return Status::Ok();
}

void State::ApplyCommand(const CreateContinuousObject& c, int64_t time_ms) {
  continuous_[c.name] = ContinuousObjectState{c.kind, c.statement, c.definition, c.inputs, time_ms};
}

Status State::CheckCommand(const DropContinuousObject& c) const {
  auto it = continuous_.find(c.name);
  if (it == continuous_.end()) return NotFoundError(c.name + " does not exist");
  if (it->second.kind != c.kind) return InvalidArgumentError(c.name + " is a " + it->second.kind + ", not a " + c.kind);
  for (const auto& [name, o] : continuous_) {
    for (const auto& input : o.inputs) {
      if (input == c.name) return FailedPreconditionError(o.kind + " " + name + " reads " + c.name + ": drop it first");
    }
  }
  return Status::Ok();
}

void State::ApplyCommand(const DropContinuousObject& c, int64_t /*time_ms*/) { continuous_.erase(c.name); }

Status State::CheckCommand(const CommitContinuousProgress& c) const {
  auto it = continuous_.find(c.name);
  if (it == continuous_.end()) return NotFoundError(c.name + " does not exist");
  if (it->second.kind == "source") return InvalidArgumentError(c.name + " is a source: only streams, views and sinks run");
  if (c.epoch != it->second.epoch + 1) {
    return FailedPreconditionError(c.name + " is at epoch " + std::to_string(it->second.epoch) + ", not " +
                                   std::to_string(c.epoch - 1) + ": another run committed it");
  }
  return Status::Ok();
}

void State::ApplyCommand(const CommitContinuousProgress& c, int64_t /*time_ms*/) {
  auto& o = continuous_[c.name];
  o.epoch = c.epoch;
  o.progress = c.progress;
}

}  // namespace mink::metadata
