#pragma once
// StreamStoreTest: a metadata log in SQLite and an in-memory object store of the test's own, and
// nodes started on them (test_node.h). Shared by stream_store_test.cc and
// stream_store_maintenance_test.cc.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "object_store/memory_store.h"
#include "storage/stream_store.h"
#include "test_env.h"
#include "test_node.h"

namespace mink::storage {

class StreamStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("storage");
    meta_url_ = "sqlite:" + dir_ + "/meta.db";
    mem_ = std::make_shared<object_store::MemoryStore>();
    stores_ = StoreSet{mem_, -2, mem_, -3};
    options_.wal_flush_interval = std::chrono::milliseconds(5);
  }
  std::unique_ptr<testing::TestNode> Node(int32_t id, const Clock* clock = nullptr) {
    return testing::TestNode::Start(meta_url_, stores_, id, options_, clock);
  }
  uint64_t NewOpenStream(testing::TestNode* node) {
    auto id = node->store->CreateStream("test");
    EXPECT_TRUE(id.ok()) << id.status();
    EXPECT_TRUE(node->store->OpenStream(*id).ok());
    return *id;
  }

  std::string dir_;
  std::string meta_url_;
  std::shared_ptr<object_store::MemoryStore> mem_;
  StoreSet stores_;
  StorageOptions options_;
};

}  // namespace mink::storage
