#include "kafka/server/offset_store.h"

namespace mink::kafka {

std::shared_ptr<OffsetStore::Entry> OffsetStore::EntryFor(const std::string& group) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::shared_ptr<Entry>& e = entries_[group];
  if (!e) e = std::make_shared<Entry>();
  return e;
}

Status OffsetStore::LoadLocked(const std::string& group, Entry& e, int64_t epoch) {
  if (e.loaded && e.epoch == epoch) return Status::Ok();
  e.loaded = false;
  e.offsets.clear();
  if (store_ != nullptr) {
    MINK_ASSIGN_OR_RETURN(std::vector<metadata::GroupOffset> rows, store_->ListGroupOffsets(group));
    for (metadata::GroupOffset& row : rows) {
      std::pair<std::string, int32_t> key(row.topic, row.partition);
      e.offsets[std::move(key)] = std::move(row);
    }
  }
  e.loaded = true;
  e.epoch = epoch;
  return Status::Ok();
}

Status OffsetStore::Commit(const std::string& group,
                           const std::vector<metadata::GroupOffset>& offsets,
                           const metadata::OffsetFence* fence) {
  if (offsets.empty()) return Status::Ok();
  std::shared_ptr<Entry> e = EntryFor(group);
  std::lock_guard<std::mutex> lock(e->mutex);
  // Load first, so that the cache never holds a partial view of the group.
  MINK_RETURN_IF_ERROR(LoadLocked(group, *e, fence != nullptr ? fence->epoch : 0));
  if (store_ != nullptr) {
    Status s = store_->CommitGroupOffsets(group, offsets, fence);
    if (!s.ok()) {
      e->loaded = false;  // fenced, or unsure whether it landed: read the database next time
      return s;
    }
  }
  for (const metadata::GroupOffset& o : offsets) e->offsets[{o.topic, o.partition}] = o;
  return Status::Ok();
}

Result<GroupOffsetMap> OffsetStore::Fetch(const std::string& group,
                                          const metadata::OffsetFence* fence) {
  std::shared_ptr<Entry> e = EntryFor(group);
  std::lock_guard<std::mutex> lock(e->mutex);
  MINK_RETURN_IF_ERROR(LoadLocked(group, *e, fence != nullptr ? fence->epoch : 0));
  return e->offsets;
}

Result<std::vector<std::string>> OffsetStore::Groups() {
  if (store_ != nullptr) return store_->ListOffsetGroups();
  std::vector<std::pair<std::string, std::shared_ptr<Entry>>> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    entries.assign(entries_.begin(), entries_.end());
  }
  std::vector<std::string> out;
  for (auto& [group, e] : entries) {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (!e->offsets.empty()) out.push_back(group);
  }
  return out;
}

Status OffsetStore::DeleteGroup(const std::string& group, const metadata::OffsetFence* fence) {
  std::shared_ptr<Entry> e = EntryFor(group);
  std::lock_guard<std::mutex> lock(e->mutex);
  if (store_ != nullptr) {
    Status s = store_->DeleteGroupOffsets(group, fence);
    if (!s.ok()) {
      e->loaded = false;  // fenced, or unsure whether it landed: read the database next time
      return s;
    }
  }
  e->offsets.clear();
  e->loaded = true;  // known to be empty now
  return Status::Ok();
}

Status OffsetStore::DeleteTopic(const std::string& topic) {
  if (store_ != nullptr) MINK_RETURN_IF_ERROR(store_->DeleteTopicOffsets(topic));
  std::vector<std::shared_ptr<Entry>> entries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [group, e] : entries_) entries.push_back(e);
  }
  for (const std::shared_ptr<Entry>& e : entries) {
    std::lock_guard<std::mutex> lock(e->mutex);
    if (store_ != nullptr) {
      e->loaded = false;  // read again from the database on next use
      e->offsets.clear();
    } else {
      std::erase_if(e->offsets, [&](const auto& kv) { return kv.first.first == topic; });
    }
  }
  return Status::Ok();
}

}  // namespace mink::kafka
