#include "stream/window_aggregate.h"

#include <algorithm>

#include "stream/checkpoint_bytes.h"

namespace mink::stream {
namespace {

bool KeyLess(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
  return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                      [](const Scalar& x, const Scalar& y) { return x < y; });
}

// Floor of a / b for b > 0 (rounds toward negative infinity, so windows before 0 line up).
int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

Status WindowSpec::Check() const {
  switch (kind) {
    case WindowKind::kTumble:
      if (size <= 0) return InvalidArgumentError("a tumbling window's size must be positive");
      return Status::Ok();
    case WindowKind::kHop:
      if (size <= 0 || slide <= 0) return InvalidArgumentError("a hopping window's size and slide must be positive");
      if (slide > size) return InvalidArgumentError("a hopping window's slide is larger than its size");
      if (size % slide != 0) return InvalidArgumentError("a hopping window's size must be a multiple of its slide");
      return Status::Ok();
    case WindowKind::kSession:
      if (gap <= 0) return InvalidArgumentError("a session window's gap must be positive");
      return Status::Ok();
  }
  return InvalidArgumentError("unknown window kind");
}

std::vector<Window> WindowsOf(const WindowSpec& spec, int64_t t) {
  std::vector<Window> out;
  if (spec.kind == WindowKind::kTumble) {
    const int64_t start = FloorDiv(t - spec.offset, spec.size) * spec.size + spec.offset;
    out.push_back({start, start + spec.size});
  } else if (spec.kind == WindowKind::kHop) {
    const int64_t last = FloorDiv(t, spec.slide) * spec.slide;  // the latest window holding t
    for (int64_t start = last - spec.size + spec.slide; start <= last; start += spec.slide) {
      out.push_back({start, start + spec.size});
    }
  }
  return out;
}

bool WindowAggregate::KeyOrder::operator()(const std::vector<Scalar>& a, const std::vector<Scalar>& b) const {
  return KeyLess(a, b);
}

bool WindowAggregate::OpenKey::operator<(const OpenKey& o) const {
  if (end != o.end) return end < o.end;
  if (KeyLess(key, o.key)) return true;
  if (KeyLess(o.key, key)) return false;
  return start < o.start;
}

WindowAggregate::Group WindowAggregate::NewGroup() const {
  Group g;
  for (AggregateKind kind : aggregates_) g.accumulators.emplace_back(kind);
  return g;
}

Status WindowAggregate::Apply(Group* group, const std::vector<Scalar>& inputs, int64_t weight) const {
  if (inputs.size() != aggregates_.size()) {
    return InvalidArgumentError("a row has " + std::to_string(inputs.size()) + " aggregate inputs, the query " +
                                std::to_string(aggregates_.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) MINK_RETURN_IF_ERROR(group->accumulators[i].Add(inputs[i], weight));
  group->rows += weight;
  return Status::Ok();
}

Result<bool> WindowAggregate::Add(const std::vector<Scalar>& key, int64_t time, const std::vector<Scalar>& inputs,
                                  int64_t weight) {
  if (spec_.kind == WindowKind::kSession) return AddToSession(key, time, inputs, weight);
  // Every open window of the row takes it, or none does.
  std::vector<std::pair<OpenKey, Group>> updated;
  for (const Window& w : WindowsOf(spec_, time)) {
    if (w.end <= watermark_) continue;
    OpenKey at{w.end, key, w.start};
    auto it = open_.find(at);
    if (it == open_.end() && weight < 0) {
      return FailedPreconditionError("a retraction in a window that holds no rows of its key");
    }
    Group group = it == open_.end() ? NewGroup() : it->second;
    MINK_RETURN_IF_ERROR(Apply(&group, inputs, weight));
    updated.emplace_back(std::move(at), std::move(group));
  }
  if (updated.empty()) {
    ++late_rows_;
    return false;
  }
  for (auto& [at, group] : updated) open_[at] = std::move(group);
  return true;
}

Result<bool> WindowAggregate::AddToSession(const std::vector<Scalar>& key, int64_t time,
                                           const std::vector<Scalar>& inputs, int64_t weight) {
  // The key's sessions that the row's own window [time, time + gap) touches merge with it.
  // Sessions of a key do not overlap: walking back from the last one starting before the row's
  // window ends finds every one that touches it.
  std::map<int64_t, int64_t>& sessions = sessions_[key];
  std::vector<std::map<OpenKey, Group>::iterator> touched;
  Window merged{time, time + spec_.gap};
  for (auto it = sessions.lower_bound(time + spec_.gap); it != sessions.begin();) {
    --it;
    if (it->second <= time) break;
    touched.push_back(open_.find(OpenKey{it->second, key, it->first}));
    merged.start = std::min(merged.start, it->first);
    merged.end = std::max(merged.end, it->second);
  }
  if (weight < 0) {
    // A retraction belongs to the session holding its row; it never merges sessions.
    for (auto it : touched) {
      if (it->first.start <= time && time < it->first.end) {
        Group group = it->second;
        MINK_RETURN_IF_ERROR(Apply(&group, inputs, weight));
        it->second = std::move(group);
        return true;
      }
    }
    if (sessions.empty()) sessions_.erase(key);
    if (time + spec_.gap <= watermark_) {
      ++late_rows_;
      return false;
    }
    return FailedPreconditionError("a retraction in a session that holds no rows of its key");
  }
  if (merged.end <= watermark_) {
    if (sessions.empty()) sessions_.erase(key);
    ++late_rows_;
    return false;
  }
  Group group = NewGroup();
  MINK_RETURN_IF_ERROR(Apply(&group, inputs, weight));
  for (auto it : touched) {
    for (size_t i = 0; i < group.accumulators.size(); ++i) group.accumulators[i].Merge(it->second.accumulators[i]);
    group.rows += it->second.rows;
    sessions.erase(it->first.start);
    open_.erase(it);
  }
  sessions[merged.start] = merged.end;
  open_[OpenKey{merged.end, key, merged.start}] = std::move(group);
  return true;
}

std::vector<WindowResult> WindowAggregate::Advance(int64_t watermark) {
  std::vector<WindowResult> out;
  if (watermark <= watermark_) return out;
  watermark_ = watermark;
  while (!open_.empty() && open_.begin()->first.end <= watermark_) {
    auto node = open_.extract(open_.begin());
    if (spec_.kind == WindowKind::kSession) {
      auto sessions = sessions_.find(node.key().key);
      sessions->second.erase(node.key().start);
      if (sessions->second.empty()) sessions_.erase(sessions);
    }
    if (node.mapped().rows <= 0) continue;  // every row retracted
    WindowResult r;
    r.key = std::move(node.key().key);
    r.window = {node.key().start, node.key().end};
    for (const auto& a : node.mapped().accumulators) r.values.push_back(a.Value());
    out.push_back(std::move(r));
  }
  return out;
}

size_t WindowAggregate::open_windows() const { return open_.size(); }

namespace {

constexpr std::string_view kWindowMagic = "MKWA";

void EncodeKinds(const std::vector<AggregateKind>& kinds, std::string* out) {
  PutU32(out, static_cast<uint32_t>(kinds.size()));
  for (AggregateKind k : kinds) PutU8(out, static_cast<uint8_t>(k));
}

}  // namespace

std::string WindowAggregate::Checkpoint() const {
  std::string out = BeginCheckpoint(kWindowMagic);
  PutU8(&out, static_cast<uint8_t>(spec_.kind));
  PutI64(&out, spec_.size);
  PutI64(&out, spec_.slide);
  PutI64(&out, spec_.gap);
  PutI64(&out, spec_.offset);
  EncodeKinds(aggregates_, &out);
  PutI64(&out, watermark_);
  PutI64(&out, late_rows_);
  PutU32(&out, static_cast<uint32_t>(open_.size()));
  for (const auto& [at, group] : open_) {
    PutI64(&out, at.start);
    PutI64(&out, at.end);
    EncodeRow(at.key, &out);
    PutI64(&out, group.rows);
    for (const auto& a : group.accumulators) a.Encode(&out);
  }
  return SealCheckpoint(std::move(out));
}

Result<std::unique_ptr<WindowAggregate>> WindowAggregate::Restore(std::string_view bytes, const WindowSpec& spec,
                                                                  const std::vector<AggregateKind>& aggregates) {
  uint8_t version = 0;
  MINK_ASSIGN_OR_RETURN(std::string_view body, OpenCheckpoint(bytes, kWindowMagic, &version));
  ByteReader in(body);
  const Status bad = DataLossError("checkpoint of operator MKWA: cut short or malformed");
  uint8_t kind = 0;
  WindowSpec saved;
  uint32_t n = 0;
  if (!in.ReadU8(&kind) || !in.ReadI64(&saved.size) || !in.ReadI64(&saved.slide) || !in.ReadI64(&saved.gap) ||
      !in.ReadI64(&saved.offset) || !in.ReadU32(&n) || n > in.remaining()) {
    return bad;
  }
  saved.kind = static_cast<WindowKind>(kind);
  std::vector<AggregateKind> kinds(n);
  for (auto& k : kinds) {
    uint8_t v = 0;
    if (!in.ReadU8(&v)) return bad;
    k = static_cast<AggregateKind>(v);
  }
  if (saved.kind != spec.kind || saved.size != spec.size || saved.slide != spec.slide || saved.gap != spec.gap ||
      saved.offset != spec.offset || kinds != aggregates) {
    return InvalidArgumentError("the checkpoint holds the state of another window or other aggregates");
  }
  auto w = std::make_unique<WindowAggregate>(spec, aggregates);
  uint32_t open = 0;
  if (!in.ReadI64(&w->watermark_) || !in.ReadI64(&w->late_rows_) || !in.ReadU32(&open)) return bad;
  for (uint32_t i = 0; i < open; ++i) {
    OpenKey at;
    Group group;
    if (!in.ReadI64(&at.start) || !in.ReadI64(&at.end) || !DecodeRow(&in, &at.key) || !in.ReadI64(&group.rows)) {
      return bad;
    }
    for (AggregateKind k : aggregates) {
      if (!Accumulator::Decode(&in, k, version, &group.accumulators.emplace_back())) return bad;
    }
    if (spec.kind == WindowKind::kSession) w->sessions_[at.key][at.start] = at.end;
    w->open_.emplace(std::move(at), std::move(group));
  }
  if (in.remaining() != 0) return bad;
  return w;
}

}  // namespace mink::stream
