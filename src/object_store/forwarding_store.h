#pragma once
// ForwardingStore: an ObjectStore that passes every call to another one. A wrapper that times,
// records or changes some calls (the benchmarks' timing store, tests' recorders) derives from it
// and overrides only those.

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "object_store/object_store.h"

namespace mink::object_store {

class ForwardingStore : public ObjectStore {
 public:
  explicit ForwardingStore(std::shared_ptr<ObjectStore> inner) : inner_(std::move(inner)) {}

  Status Put(std::string_view key, std::string_view data) override { return inner_->Put(key, data); }
  Status PutInBackground(std::string_view key, std::string_view data) override {
    return inner_->PutInBackground(key, data);
  }
  Status PutUnpublished(std::string_view key, std::string_view data) override {
    return inner_->PutUnpublished(key, data);
  }
  Result<std::string> Get(std::string_view key) override { return inner_->Get(key); }
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override {
    return inner_->GetRange(key, offset, length);
  }
  Result<Buffer> GetRangeBuffer(std::string_view key, uint64_t offset, uint64_t length,
                                Reuse reuse) override {
    return inner_->GetRangeBuffer(key, offset, length, reuse);
  }
  Result<ObjectInfo> Head(std::string_view key) override { return inner_->Head(key); }
  Result<std::vector<ObjectInfo>> List(std::string_view prefix) override {
    return inner_->List(prefix);
  }
  Status Delete(std::string_view key) override { return inner_->Delete(key); }
  std::string Describe() const override { return inner_->Describe(); }

 protected:
  ObjectStore& inner() { return *inner_; }

 private:
  std::shared_ptr<ObjectStore> inner_;
};

}  // namespace mink::object_store
