#pragma once
// A storage node for tests: its own MetadataLog on a shared SQLite file and a StreamStore over
// shared object stores, so several nodes in one test see the same cluster.

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "metadata/metadata_log.h"
#include "storage/stream_store.h"

namespace mink::storage::testing {

struct TestNode {
  std::unique_ptr<metadata::MetadataLog> meta;
  std::unique_ptr<StreamStore> store;

  static std::unique_ptr<TestNode> Start(const std::string& meta_url, StoreSet stores,
                                         int32_t node_id, StorageOptions options = {},
                                         const Clock* clock = nullptr) {
    auto node = std::make_unique<TestNode>();
    metadata::MetadataOptions mo;
    mo.node_label = "node-" + std::to_string(node_id);
    if (clock != nullptr) mo.clock = clock;
    auto meta = metadata::MetadataLog::Open(meta_url, mo);
    EXPECT_TRUE(meta.ok()) << meta.status();
    if (!meta.ok()) return nullptr;
    node->meta = std::move(*meta);
    auto identity = StreamStore::RegisterNode(node->meta.get(), node_id);
    EXPECT_TRUE(identity.ok()) << identity.status();
    auto store = StreamStore::Open(options, node->meta.get(), std::move(stores), *identity,
                                   /*maintenance=*/false);
    EXPECT_TRUE(store.ok()) << store.status();
    if (!store.ok()) return nullptr;
    node->store = std::move(*store);
    return node;
  }
};

inline BatchInput Records(const std::string& payload, int32_t count = 1) {
  BatchInput in;
  in.record_count = count;
  in.payload = payload;
  return in;
}

// Every batch of a stream from `from` to its end, read in pages.
inline std::vector<BatchPtr> ReadAll(StreamStore* store, uint64_t stream, int64_t from = 0) {
  std::vector<BatchPtr> out;
  int64_t at = from;
  while (true) {
    auto r = store->Read(stream, at, 64 << 10);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok() || r->batches.empty()) break;
    for (auto& b : r->batches) {
      at = b->end_offset();
      out.push_back(b);
    }
    if (at >= r->end_offset) break;
  }
  return out;
}

}  // namespace mink::storage::testing
