#include "stream/keyed_aggregate.h"

#include <algorithm>

#include "stream/checkpoint_bytes.h"

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

std::string KeyedAggregate::Checkpoint() const {
  std::string out = BeginCheckpoint("MKKA");
  PutU32(&out, static_cast<uint32_t>(aggregates_.size()));
  for (AggregateKind k : aggregates_) PutU8(&out, static_cast<uint8_t>(k));
  PutU32(&out, static_cast<uint32_t>(groups_.size()));
  for (const auto& [key, g] : groups_) {
    EncodeRow(key, &out);
    PutI64(&out, g.rows);
    PutU8(&out, static_cast<uint8_t>((g.dirty ? 1 : 0) | (g.emitted ? 2 : 0)));
    if (g.emitted) EncodeRow(*g.emitted, &out);
    for (const auto& a : g.accumulators) a.Encode(&out);
  }
  return SealCheckpoint(std::move(out));
}

Result<std::unique_ptr<KeyedAggregate>> KeyedAggregate::Restore(std::string_view bytes,
                                                                const std::vector<AggregateKind>& aggregates) {
  uint8_t version = 0;
  MINK_ASSIGN_OR_RETURN(std::string_view body, OpenCheckpoint(bytes, "MKKA", &version));
  ByteReader in(body);
  const Status bad = DataLossError("checkpoint of operator MKKA: cut short or malformed");
  uint32_t n = 0;
  if (!in.ReadU32(&n) || n > in.remaining()) return bad;
  std::vector<AggregateKind> kinds(n);
  for (auto& k : kinds) {
    uint8_t v = 0;
    if (!in.ReadU8(&v)) return bad;
    k = static_cast<AggregateKind>(v);
  }
  if (kinds != aggregates) return InvalidArgumentError("the checkpoint holds the state of other aggregates");
  auto keyed = std::make_unique<KeyedAggregate>(aggregates);
  uint32_t groups = 0;
  if (!in.ReadU32(&groups)) return bad;
  for (uint32_t i = 0; i < groups; ++i) {
    std::vector<Scalar> key;
    Group g;
    uint8_t flags = 0;
    if (!DecodeRow(&in, &key) || !in.ReadI64(&g.rows) || !in.ReadU8(&flags)) return bad;
    g.dirty = (flags & 1) != 0;
    if (flags & 2) {
      if (!DecodeRow(&in, &g.emitted.emplace())) return bad;
    }
    for (AggregateKind k : aggregates) {
      if (!Accumulator::Decode(&in, k, version, &g.accumulators.emplace_back())) return bad;
    }
    keyed->groups_.emplace(std::move(key), std::move(g));
  }
  if (in.remaining() != 0) return bad;
  return keyed;
}

}  // namespace mink::stream
