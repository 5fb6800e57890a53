#include "lake/orphan_sweep.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

#include "base/log.h"

namespace mink::lake {
namespace {

struct RoundFile {
  int64_t sequence_number = 0;
  std::string tag;
};

bool Digits(std::string_view s) {
  return !s.empty() && s.size() <= 18 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A canonical UUID: 8-4-4-4-12 lowercase hex digits.
bool Uuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? s[i] != '-' : !((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
  }
  return true;
}

// A round's tag, `<sequence number>-<uuid>`, exactly; other engines' names never are one.
std::optional<RoundFile> Tag(std::string_view tag) {
  const size_t dash = tag.find('-');
  if (dash == std::string_view::npos || !Digits(tag.substr(0, dash)) || !Uuid(tag.substr(dash + 1))) {
    return std::nullopt;
  }
  return RoundFile{std::stoll(std::string(tag.substr(0, dash))), std::string(tag)};
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The round that wrote the file named `name`, when its name is one a round gives:
// `<tag>-<n>.parquet`, `<tag>-m<n>.avro`, `snap-<snapshot id>-1-<tag>.avro`.
std::optional<RoundFile> RoundOf(std::string_view name) {
  if (name.substr(0, 5) == "snap-" && EndsWith(name, ".avro")) {
    const size_t id_end = name.find('-', 5);
    if (id_end == std::string_view::npos || !Digits(name.substr(5, id_end - 5)) ||
        name.substr(id_end, 3) != "-1-") {
      return std::nullopt;
    }
    return Tag(name.substr(id_end + 3, name.size() - 5 - (id_end + 3)));
  }
  std::string_view stem, number;
  if (EndsWith(name, ".parquet")) {
    stem = name.substr(0, name.size() - 8);
  } else if (EndsWith(name, ".avro")) {
    stem = name.substr(0, name.size() - 5);
  } else {
    return std::nullopt;
  }
  const size_t last = stem.rfind('-');
  if (last == std::string_view::npos) return std::nullopt;
  number = stem.substr(last + 1);
  if (EndsWith(name, ".avro")) {
    if (number.empty() || number[0] != 'm') return std::nullopt;
    number.remove_prefix(1);
  }
  if (!Digits(number)) return std::nullopt;
  return Tag(stem.substr(0, last));
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
    // Snapshots of another engine (an attached table's) have names of their own; their files
    // never have a round's name, so the sweep never takes them.
    for (const auto& snapshot : lake.snapshots) {
      if (auto round = RoundOf(FileName(snapshot.manifest_list))) committed.insert(round->tag);
      named.insert(snapshot.manifest_list);
    }
    for (const auto& f : lake.files) named.insert(f.path);
    for (const auto& m : lake.manifests) named.insert(m.path);
    MINK_ASSIGN_OR_RETURN(auto uris, warehouse_->ListUnder(lake.location));
    size_t removed = 0;
    for (const auto& uri : uris) {
      auto round = RoundOf(FileName(uri));
      if (!round || round->sequence_number > lake.sequence_number || committed.count(round->tag) != 0 ||
          named.count(uri) != 0 || (in_flight_ && in_flight_(round->tag))) {
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
