#include "kv/kv_snapshot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "object_store/memory_store.h"
#include "kv_test_keys.h"
#include "test_env.h"

namespace mink::kv {
namespace {

class KvSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("kv_snapshot");
    env_ = std::move(*KvEnvironment::Open(dir_ + "/a", 32 << 20));
  }

  // Writes keys [0, n) with values tagged `tag`.
  static void Fill(KvStore* store, int from, int to, const std::string& tag) {
    for (int first = from; first < to; first += 1000) {
      std::vector<KvChange> changes;
      for (int i = first; i < std::min(to, first + 1000); ++i) changes.push_back({TestKey(i), tag + std::string(180, 'x')});
      ASSERT_TRUE(store->Apply(changes).ok());
    }
  }

  UploadedSnapshot Snapshot(KvStore* store, int64_t offset) {
    auto checkpoint = store->MakeCheckpoint();
    EXPECT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
    auto up = UploadCheckpoint(&objects_, env_.get(), *store, **checkpoint, offset, 3, "writers");
    EXPECT_TRUE(up.ok()) << up.status().ToString();
    // What a confirmed commit does: the files are in the store from now on.
    std::map<std::string, StoredFile> stored(up->manifest.files.begin(), up->manifest.files.end());
    store->set_stored_files(stored);
    return *up;
  }

  static std::map<std::string, std::string> All(KvStore* store) {
    std::map<std::string, std::string> all;
    for (auto c = store->Scan(); c->Valid(); c->Next()) all[std::string(c->key())] = c->value();
    return all;
  }

  std::string dir_;
  object_store::MemoryStore objects_;
  std::unique_ptr<KvEnvironment> env_;
};

TEST_F(KvSnapshotTest, ASnapshotAfterOnePercentChangedUploadsOnlyWhatChanged) {
  auto store = *env_->Create(5);
  Fill(store.get(), 0, 50'000, "a");
  UploadedSnapshot first = Snapshot(store.get(), 100);
  EXPECT_EQ(first.uploaded_bytes, first.state_bytes);
  EXPECT_GT(first.state_bytes, 512u << 10);
  Fill(store.get(), 0, 500, "b");  // 1% of the keys
  UploadedSnapshot second = Snapshot(store.get(), 200);
  EXPECT_GT(second.uploaded_bytes, 0u);
  EXPECT_LT(second.uploaded_bytes * 20, second.state_bytes)
      << second.uploaded_bytes << " uploaded of " << second.state_bytes;
  // Every file of the first snapshot is still named by the second.
  for (const auto& [name, f] : first.manifest.files) {
    bool named = false;
    for (const auto& [n2, f2] : second.manifest.files) named |= f2.key == f.key;
    EXPECT_TRUE(named) << f.key;
  }
}

TEST_F(KvSnapshotTest, ARestoreOnAnotherMachineEqualsTheStateAndAReopenFetchesNothing) {
  auto store = *env_->Create(5);
  Fill(store.get(), 0, 20'000, "a");
  Fill(store.get(), 100, 200, "b");
  ASSERT_TRUE(store->Apply({{TestKey(5), std::nullopt}}).ok());
  UploadedSnapshot up = Snapshot(store.get(), 42);
  const std::string encoded = EncodeManifest(up.manifest);
  auto manifest = DecodeManifest(encoded, "m");
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  EXPECT_EQ(manifest->offset, 42);
  EXPECT_EQ(manifest->schema_id, 3);
  EXPECT_EQ(manifest->writers, "writers");

  // Another machine: an empty cache directory fetches every file.
  auto other = std::move(*KvEnvironment::Open(dir_ + "/b", 32 << 20));
  RestoreStats stats;
  auto restored = RestoreSnapshot(&objects_, other.get(), 5, *manifest, &stats);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ(All(restored->get()), All(store.get()));
  EXPECT_EQ(stats.fetched_files, stats.files);
  EXPECT_GT(stats.files, 0u);
  // New writes there go under its own lineage, never a key the first store uploaded.
  EXPECT_NE((*restored)->lineage(), store->lineage());
  restored->reset();

  // Again on the same machine: every file comes from its cache directory.
  RestoreStats again;
  auto reopened = RestoreSnapshot(&objects_, other.get(), 5, *manifest, &again);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(again.fetched_files, 0u);
  EXPECT_EQ(All(reopened->get()).size(), 19'999u);
}

TEST_F(KvSnapshotTest, ADamagedFileIsDataLossNamingItAndNoWorkingCopyIsLeft) {
  auto store = *env_->Create(5);
  Fill(store.get(), 0, 2000, "a");
  UploadedSnapshot up = Snapshot(store.get(), 1);
  ASSERT_FALSE(up.manifest.files.empty());
  const std::string damaged = up.manifest.files[0].second.key;
  std::string bytes = *objects_.Get(damaged);
  bytes[bytes.size() / 2] ^= 1;
  objects_.Overwrite(damaged, bytes);
  auto other = std::move(*KvEnvironment::Open(dir_ + "/c", 8 << 20));
  auto restored = RestoreSnapshot(&objects_, other.get(), 5, up.manifest, nullptr);
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(restored.status().message().find(damaged), std::string::npos);
  size_t left = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/c/work")) {
    if (e.is_directory()) left += std::distance(std::filesystem::directory_iterator(e), {});
  }
  EXPECT_EQ(left, 0u);
}

TEST_F(KvSnapshotTest, AManifestWithAPathForAFileNameOrDamagedBytesIsRefused) {
  SnapshotManifest m;
  m.offset = 9;
  m.files.push_back({"../../etc/x.sst", StoredFile{"kv/1/a/x.sst", 1, 0}});
  auto bad_name = DecodeManifest(EncodeManifest(m), "m1");
  ASSERT_FALSE(bad_name.ok());
  EXPECT_NE(bad_name.status().message().find("bad or repeated file name"), std::string::npos);
  m.files.clear();
  m.inline_files.push_back({"CURRENT", "MANIFEST-000001\n"});
  m.inline_files.push_back({"CURRENT", "again"});
  EXPECT_FALSE(DecodeManifest(EncodeManifest(m), "m2").ok());
  m.inline_files.pop_back();
  std::string good = EncodeManifest(m);
  ASSERT_TRUE(DecodeManifest(good, "m3").ok());
  for (size_t cut : {size_t{0}, size_t{9}, good.size() - 1}) {
    EXPECT_EQ(DecodeManifest(good.substr(0, cut), "m4").status().code(), StatusCode::kDataLoss) << cut;
  }
  good[12] ^= 1;
  EXPECT_NE(DecodeManifest(good, "m5").status().message().find("checksum"), std::string::npos);
}

}  // namespace
}  // namespace mink::kv
