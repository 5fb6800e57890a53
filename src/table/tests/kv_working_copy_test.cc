// Primary-key buckets on their RocksDB working copies (kv/): state several times the memory
// budget, incremental snapshots, restores into an empty cache directory, and snapshots of the
// format before manifests.

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "kv/kv_snapshot.h"
#include "table/kv_state.h"
#include "table/row_codec.h"
#include "table_test_node.h"

namespace mink::table {
namespace {

using testing::TestNode;

class KvWorkingCopyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    meta_url_ = testing::TempMetaUrl("kv-working-copy");
    objects_ = std::make_shared<object_store::MemoryStore>();
    cache_dir_ = testing_env::MakeTempDir("kv-cache");
    Restart();
    ASSERT_TRUE(node_->tables->CreateDatabase("shop").ok());
    TableSpec items;
    items.columns = {"id BIGINT NOT NULL", "note STRING", "n BIGINT"};
    items.primary_key = {"id"};
    items.bucket_count = 1;
    ASSERT_TRUE(node_->tables->CreateTable("shop.items", items).ok());
    TableSpec sums;
    sums.columns = {"id BIGINT NOT NULL", "qty BIGINT"};
    sums.primary_key = {"id"};
    sums.bucket_count = 1;
    sums.options = {{"table.merge-engine", "aggregation"}, {"fields.qty.agg", "sum"}};
    ASSERT_TRUE(node_->tables->CreateTable("shop.sums", sums).ok());
  }

  // A node whose working copies share `kv_memory` bytes, snapshotting only when told.
  void Restart(bool wipe_cache = false, uint64_t kv_memory = kKvMemory) {
    node_.reset();
    if (wipe_cache) {
      std::filesystem::remove_all(cache_dir_);
      std::filesystem::create_directories(cache_dir_);
    }
    testing::NodeOptions options;
    options.tables.kv_cache_dir = cache_dir_;
    options.tables.kv_memory_bytes = kv_memory;
    options.tables.kv_snapshot_records = 1'000'000'000;
    options.tables.kv_snapshot_interval = std::chrono::milliseconds(0);
    node_ = TestNode::Start(meta_url_, objects_, options);
    ASSERT_NE(node_, nullptr);
  }

  void Write(const std::string& table, const std::vector<Row>& rows, WriteMode mode = WriteMode::kUpsert,
             std::vector<std::string> columns = {}) {
    auto info = node_->tables->DescribeTable(table);
    ASSERT_TRUE(info.ok()) << info.status();
    WriteRequest w{table, mode};
    w.columns = std::move(columns);
    auto r = node_->tables->Write(w, {testing::TableBatch(info->descriptor, rows)});
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // The snapshot read's rows, sorted as text (the read's order is the keys' encoded bytes).
  std::vector<std::string> Snapshot(const std::string& table) {
    ReadRequest r{table};
    r.mode = ReadMode::kSnapshot;
    auto lines = testing::ReadLines(*node_->tables, r);
    std::sort(lines.begin(), lines.end());
    return lines;
  }

  std::optional<metadata::KvSnapshotState> SnapshotOf(const std::string& table) {
    auto info = node_->tables->DescribeTable(table);
    const uint64_t stream = node_->meta->Read([&](const metadata::State& s) {
      return s.FindTable(info->table_id)->streams.at(0);
    });
    return node_->meta->Read([&](const metadata::State& s) {
      auto it = s.kv_snapshots().find(stream);
      return it == s.kv_snapshots().end() ? std::nullopt
                                          : std::optional<metadata::KvSnapshotState>(it->second);
    });
  }

  // About 200 bytes that do not compress much (a state of known size in the object store).
  static std::string Note(int64_t id, int round) {
    std::string note = "note-" + std::to_string(id) + "-" + std::to_string(round) + "-";
    uint64_t x = static_cast<uint64_t>(id) * 6364136223846793005ULL + static_cast<uint64_t>(round) + 1;
    while (note.size() < 200) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      note.push_back(static_cast<char>('a' + (x >> 59)));
    }
    return note;
  }

  static constexpr uint64_t kKvMemory = 2 << 20;
  std::string meta_url_;
  std::string cache_dir_;
  std::shared_ptr<object_store::MemoryStore> objects_;
  std::unique_ptr<TestNode> node_;
};

TEST_F(KvWorkingCopyTest, StateSeveralTimesTheBudgetTakesEveryKindOfWriteAndEqualsAModel) {
  // About 25,000 rows of 230 bytes (some 6 MB of state) against 2 MB of memory.
  constexpr int kRows = 25'000;
  std::map<int64_t, std::string> items;  // id -> "id,note,n"
  std::map<int64_t, int64_t> sums;
  auto line = [](int64_t id, const std::string& note, int64_t n) {
    return std::to_string(id) + "," + note + "," + std::to_string(n);
  };
  for (int first = 0; first < kRows; first += 2500) {
    std::vector<Row> rows, increments;
    for (int64_t id = first; id < first + 2500; ++id) {
      rows.push_back({Value::Int(id), Value::Bytes(Note(id, 0)), Value::Int(id)});
      items[id] = line(id, Note(id, 0), id);
      increments.push_back({Value::Int(id % 500), Value::Int(id)});
      sums[id % 500] += id;
    }
    Write("shop.items", rows);
    Write("shop.sums", increments);
  }
  // Updates of every 7th row, deletes of every 11th, a partial update of `n` of every 13th.
  std::vector<Row> updates, deletes, partial;
  for (int64_t id = 0; id < kRows; ++id) {
    if (id % 7 == 0) {
      updates.push_back({Value::Int(id), Value::Bytes(Note(id, 1)), Value::Int(-id)});
      items[id] = line(id, Note(id, 1), -id);
    }
  }
  Write("shop.items", updates);
  for (int64_t id = 0; id < kRows; id += 11) {
    deletes.push_back({Value::Int(id), Value(), Value()});
    items.erase(id);
  }
  Write("shop.items", deletes, WriteMode::kDelete);
  for (int64_t id = 0; id < kRows; id += 13) {
    partial.push_back({Value::Int(id), Value(), Value::Int(7)});
    auto it = items.find(id);
    if (it != items.end()) it->second = it->second.substr(0, it->second.rfind(',')) + ",7";
    else items[id] = line(id, "null", 7);
  }
  Write("shop.items", partial, WriteMode::kUpsert, {"id", "n"});

  auto expected_items = [&] {
    std::vector<std::string> out;
    for (const auto& [id, l] : items) out.push_back(l);
    std::sort(out.begin(), out.end());
    return out;
  };
  auto expected_sums = [&] {
    std::vector<std::string> out;
    for (const auto& [id, s] : sums) out.push_back(std::to_string(id) + "," + std::to_string(s));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(Snapshot("shop.items"), expected_items());
  EXPECT_EQ(Snapshot("shop.sums"), expected_sums());

  // Snapshotted, then restored on a node whose cache directory is empty: the same state.
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  auto snapshot = SnapshotOf("shop.items");
  ASSERT_TRUE(snapshot);
  EXPECT_FALSE(snapshot->files.empty());
  EXPECT_GT(snapshot->size, kKvMemory) << "the state is larger than the memory budget";
  Restart(/*wipe_cache=*/true);
  EXPECT_EQ(Snapshot("shop.items"), expected_items());
  EXPECT_EQ(Snapshot("shop.sums"), expected_sums());
  // And writes go on from the restored copy: an increment adds to the restored sum.
  Write("shop.sums", {{Value::Int(3), Value::Int(1)}});
  sums[3] += 1;
  EXPECT_EQ(Snapshot("shop.sums"), expected_sums());
}

TEST_F(KvWorkingCopyTest, ASnapshotAfterOnePercentOfKeysChangedNamesTheOthersFilesAgain) {
  // Memory enough that nothing flushes before the snapshots do: the first snapshot is one SST,
  // the second adds one of the changes, and no compaction rewrites the first in between (which
  // RocksDB starts at four level-0 files).
  Restart(false, 64 << 20);
  constexpr int kRows = 20'000;
  for (int first = 0; first < kRows; first += 2500) {
    std::vector<Row> rows;
    for (int64_t id = first; id < first + 2500; ++id) {
      rows.push_back({Value::Int(id), Value::Bytes(Note(id, 0)), Value::Int(id)});
    }
    Write("shop.items", rows);
  }
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  auto first = SnapshotOf("shop.items");
  ASSERT_TRUE(first);
  std::vector<Row> changed;
  for (int64_t id = 0; id < kRows; id += 100) {
    changed.push_back({Value::Int(id), Value::Bytes(Note(id, 1)), Value::Int(0)});
  }
  Write("shop.items", changed);
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  auto second = SnapshotOf("shop.items");
  ASSERT_TRUE(second);
  ASSERT_NE(second->key, first->key);
  std::set<std::string> before;
  for (const auto& f : first->files) before.insert(f.key);
  uint64_t new_bytes = 0, all_bytes = 0;
  for (const auto& f : second->files) {
    all_bytes += f.size;
    if (!before.count(f.key)) new_bytes += f.size;
  }
  EXPECT_GT(new_bytes, 0u);
  EXPECT_LT(new_bytes * 20, all_bytes) << new_bytes << " new of " << all_bytes << " bytes";
  // The first snapshot's manifest is released; the files both name are still referenced.
  node_->meta->Read([&](const metadata::State& s) {
    EXPECT_TRUE(s.unreferenced().count(first->key));
    for (const auto& f : second->files) EXPECT_TRUE(s.objects().count(f.key)) << f.key;
  });
}

TEST_F(KvWorkingCopyTest, ASnapshotOfTheFormatBeforeManifestsIsConvertedOnOpen) {
  Write("shop.items", {{Value::Int(1), Value::Bytes("a"), Value::Int(1)},
                       {Value::Int(2), Value::Bytes("b"), Value::Int(2)}});
  auto info = node_->tables->DescribeTable("shop.items");
  const uint64_t stream = node_->meta->Read([&](const metadata::State& s) {
    return s.FindTable(info->table_id)->streams.at(0);
  });
  const int64_t end = node_->meta->Read([&](const metadata::State& s) { return s.FindStream(stream)->end_offset; });
  // A snapshot as the format before wrote it, holding one row the changelog never had: read
  // back only if the snapshot was loaded.
  KvState legacy;
  std::vector<LogicalType> types;
  for (const auto& c : info->descriptor.schema.columns) types.push_back(c.type);
  for (int64_t id : {1, 2, 99}) {
    std::string value;
    EncodeRow({Value::Int(id), Value::Bytes(id == 99 ? "only in the snapshot" : id == 1 ? "a" : "b"),
               Value::Int(id)},
              types, &value);
    legacy.Put(*EncodeCompactedKey({Value::Int(id)}, {types[0]}), std::move(value));
  }
  const std::string key = "kv/" + std::to_string(stream) + "/legacy";
  const std::string data = legacy.Snapshot(end, 0, "");
  ASSERT_TRUE(objects_->Put(key, data).ok());
  ASSERT_TRUE(node_->meta->Append(metadata::Command(metadata::CommitKvSnapshot{stream, key, -2, data.size(), end})).ok());
  Restart(/*wipe_cache=*/true);
  EXPECT_EQ(Snapshot("shop.items"), (std::vector<std::string>{"1,a,1", "2,b,2", "99,only in the snapshot,99"}));
  // Its next snapshot is a manifest.
  Write("shop.items", {{Value::Int(3), Value::Bytes("c"), Value::Int(3)}});
  ASSERT_TRUE(node_->tables->SnapshotAll().ok());
  auto next = SnapshotOf("shop.items");
  ASSERT_TRUE(next);
  EXPECT_TRUE(kv::IsManifest(*objects_->Get(next->key)));
  Restart(/*wipe_cache=*/true);
  EXPECT_EQ(Snapshot("shop.items").size(), 4u);
}

}  // namespace
}  // namespace mink::table
