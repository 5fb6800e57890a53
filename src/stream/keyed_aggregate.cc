#include "stream/keyed_aggregate.h"

#include <algorithm>

namespace mink::stream {

bool KeyedAggregate::KeyOrder::operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](const Scalar& x, const Scalar& y) { return x < y; });
}

Status KeyedAggregate::Add(const std::vector<Scalar>& key, const std::vector<Scalar>& inputs, int64_t weight) {
  if (inputs.size() != aggregates_.size()) {
    return InvalidArgumentError("a row has " + std::to_string(inputs.size()) + " aggregate inputs, the query " +
                                std::to_string(aggregates_.size()));
  }
  auto it = groups_.find(key);
  if (it == groups_.end()) {
    if (weight < 0) return FailedPreconditionError("a retraction of a key the aggregate does not hold");
    Group g;
    for (AggregateKind kind : aggregates_) g.accumulators.emplace_back(kind);
    it = groups_.emplace(key, std::move(g)).first;
  }
  // All of the row's aggregates change, or none does.
  Group updated = it->second;
  for (size_t i = 0; i < inputs.size(); ++i) MINK_RETURN_IF_ERROR(updated.accumulators[i].Add(inputs[i], weight));
  updated.rows += weight;
  updated.dirty = true;
  it->second = std::move(updated);
  return Status::Ok();
}

std::vector<KeyChange> KeyedAggregate::TakeChanges() {
  std::vector<KeyChange> out;
  for (auto it = groups_.begin(); it != groups_.end();) {
    Group& g = it->second;
    if (!g.dirty) {
      ++it;
      continue;
    }
    g.dirty = false;
    std::optional<std::vector<Scalar>> now;
    if (g.rows > 0) {
      now.emplace();
      for (const auto& a : g.accumulators) now->push_back(a.Value());
    }
    if (now != g.emitted) out.push_back(KeyChange{it->first, g.emitted, now});
    if (!now) {
      it = groups_.erase(it);
      continue;
    }
    g.emitted = std::move(now);
    ++it;
  }
  return out;
}

}  // namespace mink::stream
