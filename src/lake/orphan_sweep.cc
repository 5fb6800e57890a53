#include "lake/orphan_sweep.h"

#include <optional>
#include <set>

#include "base/log.h"

namespace mink::lake {
namespace {

struct RoundFile {
  int64_t sequence_number = 0;
  std::string tag;
};

bool ParseSequence(const std::string& tag, int64_t* out) {
  const size_t dash = tag.find('-');
  if (dash == 0 || dash == std::string::npos) return false;
  int64_t v = 0;
  for (size_t i = 0; i < dash; ++i) {
    if (tag[i] < '0' || tag[i] > '9' || v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (tag[i] - '0');
  }
  *out = v;
  return true;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The round that wrote the file named `name`, when its name is one a round gives.
std::optional<RoundFile> RoundOf(const std::string& name) {
  std::string tag;
  if (name.rfind("snap-", 0) == 0 && EndsWith(name, ".avro")) {
    // snap-<snapshot id>-1-<tag>.avro
    const size_t id_end = name.find('-', 5);
    if (id_end == std::string::npos || name.compare(id_end, 3, "-1-") != 0) return std::nullopt;
    tag = name.substr(id_end + 3, name.size() - 5 - (id_end + 3));
  } else if (EndsWith(name, ".parquet") || EndsWith(name, ".avro")) {
    // <tag>-<n>.parquet, <tag>-m<n>.avro
    const size_t last = name.rfind('-');
    if (last == std::string::npos) return std::nullopt;
    tag = name.substr(0, last);
  } else {
    return std::nullopt;
  }
  RoundFile f;
  f.tag = tag;
  if (!ParseSequence(tag, &f.sequence_number)) return std::nullopt;
  return f;
}

std::string FileName(const std::string& uri) { return uri.substr(uri.rfind('/') + 1); }

}  // namespace

Result<size_t> OrphanSweep::SweepTable(const std::string& name) {
  // Not beside a round of this node, whose files are not committed yet.
  return tiering_->Exclusive([&]() -> Result<size_t> {
    MINK_ASSIGN_OR_RETURN(auto table, tables_->Resolve(name));
    metadata::LakeTableState lake;
    bool tiered = false;
    meta_->Read([&](const metadata::State& s) {
      if (auto it = s.lake_tables().find(table->id); it != s.lake_tables().end()) {
        lake = it->second;
        tiered = true;
      }
    });
    if (!tiered || lake.location.empty()) return size_t{0};
    std::set<std::string> committed, named;
    for (const auto& snapshot : lake.snapshots) {
      auto round = RoundOf(FileName(snapshot.manifest_list));
      if (!round) {
        return DataLossError("lake table " + name + ": snapshot " + std::to_string(snapshot.snapshot_id) +
                             "'s manifest list " + snapshot.manifest_list +
                             " has no round's name; not sweeping the table");
      }
      committed.insert(round->tag);
      named.insert(snapshot.manifest_list);
    }
    for (const auto& f : lake.files) named.insert(f.path);
    for (const auto& m : lake.manifests) named.insert(m.path);
    MINK_ASSIGN_OR_RETURN(auto uris, warehouse_->ListUnder(lake.location));
    size_t removed = 0;
    for (const auto& uri : uris) {
      auto round = RoundOf(FileName(uri));
      if (!round || round->sequence_number > lake.sequence_number || committed.count(round->tag) != 0 ||
          named.count(uri) != 0) {
        continue;
      }
      MINK_RETURN_IF_ERROR(warehouse_->Delete(uri));
      ++removed;
    }
    if (removed > 0) {
      MINK_LOG_INFO("lake", "{}: removed {} files of rounds that never committed", name, removed);
    }
    return removed;
  });
}

void OrphanSweep::RunIfDue(int64_t now_ms) {
  auto names = tables_->ListTables("");
  if (!names.ok()) return;
  for (const auto& name : *names) {
    auto table = tables_->Resolve(name);
    if (!table.ok() || !(*table)->d.lake_enabled) continue;
    const int64_t sequence_number = meta_->Read([&](const metadata::State& s) -> int64_t {
      auto it = s.lake_tables().find((*table)->id);
      return it == s.lake_tables().end() ? 0 : it->second.sequence_number;
    });
    {
      std::lock_guard lock(mutex_);
      auto [it, first] = seen_.try_emplace((*table)->id, Seen{sequence_number, -1});
      Seen& seen = it->second;
      const bool due = seen.last_sweep_ms < 0 ? sequence_number > seen.first_sequence_number
                                               : now_ms - seen.last_sweep_ms >= kIntervalMs;
      if (first || !due) continue;
      seen.last_sweep_ms = now_ms;
    }
    auto removed = SweepTable(name);
    if (!removed.ok()) MINK_LOG_WARN("lake", "sweeping {}: {}", name, removed.status().ToString());
  }
}

}  // namespace mink::lake
