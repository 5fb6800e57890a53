#include "storage/stream_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <map>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "object_store/file_store.h"
#include "object_store/forwarding_store.h"
#include "object_store/memory_store.h"
#include "storage/object_keys.h"
#include "storage/tests/stream_store_fixture.h"
#include "test_env.h"
#include "test_node.h"

namespace mink::storage {
namespace {

using testing::ReadAll;
using testing::Records;
using testing::TestNode;

TEST_F(StreamStoreTest, AppendedBatchesReadBackInOrderWithDenseOffsets) {
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  int64_t expected = 0;
  for (int i = 0; i < 50; ++i) {
    auto r = node->store->AppendAndWait(s, Records("batch-" + std::to_string(i), 1 + i % 3));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->base_offset, expected);
    expected = r->end_offset;
  }
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 50u);
  int64_t at = 0;
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(batches[i]->base_offset, at);
    EXPECT_EQ(batches[i]->payload.view(), "batch-" + std::to_string(i));
    at = batches[i]->end_offset();
  }
  // A read from the middle of a batch returns the batch holding that offset.
  auto mid = node->store->Read(s, 2, 1);
  ASSERT_TRUE(mid.ok());
  ASSERT_FALSE(mid->batches.empty());
  EXPECT_EQ(mid->batches.front()->base_offset, 1);
  EXPECT_EQ(mid->end_offset, expected);
}

TEST_F(StreamStoreTest, SealWhenIdleAcknowledgesALoneAppendBeforeTheFlushInterval) {
  options_.wal_flush_interval = std::chrono::milliseconds(60'000);
  options_.wal_eager_uploads = 1;
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  for (int i = 0; i < 5; ++i) {
    const auto start = std::chrono::steady_clock::now();
    auto r = node->store->AppendAndWait(s, Records("idle-" + std::to_string(i)));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->base_offset, i);
    // Without the idle seal each append would wait the whole minute.
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  }
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 5u);
  EXPECT_EQ(batches[4]->payload.view(), "idle-4");
}

TEST_F(StreamStoreTest, AnObjectReachingSealBytesIsSealedBeforeTheFlushInterval) {
  options_.wal_flush_interval = std::chrono::milliseconds(60'000);
  options_.wal_eager_uploads = 0;
  options_.wal_seal_bytes = 64 << 10;
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  // A small append alone waits for the interval.
  std::atomic<bool> small_acked{false};
  ASSERT_TRUE(node->store->Append(s, Records("small"), [&](Status st) {
    EXPECT_TRUE(st.ok()) << st;
    small_acked = true;
  }).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(small_acked.load());
  // Once the open object holds seal_bytes, it goes at once, with the small append in it.
  const auto start = std::chrono::steady_clock::now();
  auto big = node->store->AppendAndWait(s, Records(std::string(80 << 10, 'b')));
  ASSERT_TRUE(big.ok()) << big.status();
  EXPECT_EQ(big->base_offset, 1);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_TRUE(small_acked.load());
  auto batches = ReadAll(node->store.get(), s);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0]->payload.view(), "small");
  EXPECT_EQ(batches[1]->payload.size(), size_t{80 << 10});
}

TEST_F(StreamStoreTest, NothingIsReadableBeforeItIsAcknowledged) {
  object_store::FaultPlan slow;
  slow.latency = std::chrono::milliseconds(150);
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  mem_->SetFaults(slow);
  std::atomic<bool> acked{false};
  auto base = node->store->Append(s, Records("x"), [&](Status st) {
    EXPECT_TRUE(st.ok()) << st;
    acked = true;
  });
  ASSERT_TRUE(base.ok());
  auto before = node->store->Read(s, 0, 1024);
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->batches.empty());
  EXPECT_EQ(before->end_offset, 0);
  EXPECT_FALSE(acked.load());
  auto waited = node->store->Read(s, 0, 1024, std::chrono::seconds(5));
  ASSERT_TRUE(waited.ok());
  ASSERT_EQ(waited->batches.size(), 1u);
  mem_->SetFaults({});
}

TEST_F(StreamStoreTest, AReaderAtTheEndWaitsForTheNextCommit) {
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_TRUE(node->store->AppendAndWait(s, Records("late")).ok());
  });
  auto start = SteadyNow();
  auto r = node->store->Read(s, 0, 1024, std::chrono::seconds(10));
  writer.join();
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->batches.size(), 1u);
  EXPECT_EQ(r->batches[0]->payload.view(), "late");
  EXPECT_LT(SteadyNow() - start, std::chrono::seconds(5));
  // Without new data the wait ends at its deadline with nothing.
  auto empty = node->store->Read(s, 1, 1024, std::chrono::milliseconds(50));
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->batches.empty());
}

TEST_F(StreamStoreTest, OutOfRangeAndUnknownStreamsAreErrors) {
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("a", 5)).ok());
  EXPECT_EQ(node->store->Read(s, 6, 1024).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(node->store->Read(999, 0, 1024).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(node->store->Trim(s, 3).ok());
  auto below = node->store->Read(s, 2, 1024);
  EXPECT_EQ(below.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(below.status().message().find("before the start 3"), std::string::npos);
  EXPECT_TRUE(node->store->Read(s, 3, 1024).ok());
}

TEST_F(StreamStoreTest, AppendToAStreamThisNodeDoesNotOwnIsRefused) {
  auto node = Node(1);
  auto id = node->store->CreateStream("unowned");
  ASSERT_TRUE(id.ok());
  auto r = node->store->AppendAndWait(*id, Records("x"));
  EXPECT_EQ(r.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_FALSE(node->store->AppendAndWait(*id, Records("x", 0)).ok());
}

// A new owner with a higher epoch fences the old one: the old owner's commits are refused and
// what it did not get acknowledged never becomes readable.
TEST_F(StreamStoreTest, ANewOwnerFencesTheOldOwner) {
  auto a = Node(1);
  auto b = Node(2);
  uint64_t s = NewOpenStream(a.get());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(a->store->AppendAndWait(s, Records("a" + std::to_string(i))).ok());

  ASSERT_TRUE(b->meta->CatchUp().ok());
  ASSERT_TRUE(b->store->OpenStream(s).ok());

  // The old owner's appends are refused at commit.
  std::vector<std::shared_ptr<std::promise<Status>>> results;
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<std::promise<Status>>();
    results.push_back(p);
    auto base = a->store->Append(s, Records("zombie" + std::to_string(i)),
                                 [p](Status st) { p->set_value(st); });
    if (!base.ok()) p->set_value(base.status());
  }
  for (auto& p : results) {
    Status st = p->get_future().get();
    EXPECT_FALSE(st.ok());
  }
  // The new owner continues at the old owner's acknowledged end.
  auto r = b->store->AppendAndWait(s, Records("b0"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->base_offset, 10);
  ASSERT_TRUE(a->meta->CatchUp().ok());
  for (TestNode* reader : {a.get(), b.get()}) {
    auto batches = ReadAll(reader->store.get(), s);
    ASSERT_EQ(batches.size(), 11u);
    for (auto& batch : batches) EXPECT_EQ(batch->payload.view().find("zombie"), std::string::npos);
    EXPECT_EQ(batches.back()->payload.view(), "b0");
  }
  // The old owner stopped writing the stream.
  EXPECT_EQ(a->store->AppendAndWait(s, Records("again")).status().code(),
            StatusCode::kFailedPrecondition);
}

// A planned hand-off: every append taken before the release is committed (none fails), later
// ones are refused, and the next node opens at the released end.
TEST_F(StreamStoreTest, AReleaseCommitsWhatItTookAndHandsTheStreamOnAtItsEnd) {
  options_.wal_flush_interval = std::chrono::milliseconds(50);
  auto a = Node(1);
  auto b = Node(2);
  uint64_t s = NewOpenStream(a.get());
  std::vector<std::future<Status>> taken;
  for (int i = 0; i < 20; ++i) {
    auto p = std::make_shared<std::promise<Status>>();
    taken.push_back(p->get_future());
    auto base = a->store->Append(s, Records("a" + std::to_string(i)),
                                 [p](Status st) { p->set_value(st); });
    ASSERT_TRUE(base.ok()) << base.status();
    EXPECT_EQ(*base, i);
  }
  ASSERT_TRUE(a->store->ReleaseStreams({s}, std::chrono::seconds(10)).ok());
  for (auto& f : taken) EXPECT_TRUE(f.get().ok());
  EXPECT_FALSE(a->store->Writes(s));
  EXPECT_EQ(a->store->Append(s, Records("late"), [](Status) {}).status().code(),
            StatusCode::kFailedPrecondition);
  a->meta->Read([&](const metadata::State& state) {
    EXPECT_EQ(state.FindStream(s)->owner_node, 0);
    EXPECT_EQ(state.FindStream(s)->end_offset, 20);
  });
  // Releasing again is a no-op; the next owner continues at 20.
  EXPECT_TRUE(a->store->ReleaseStreams({s}, std::chrono::seconds(1)).ok());
  ASSERT_TRUE(b->meta->CatchUp().ok());
  ASSERT_TRUE(b->store->OpenStream(s).ok());
  auto r = b->store->AppendAndWait(s, Records("b0"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->base_offset, 20);
  EXPECT_EQ(ReadAll(b->store.get(), s).size(), 21u);
}

TEST_F(StreamStoreTest, ARestartedNodeFencesItsOldProcess) {
  auto old_process = Node(1);
  uint64_t s = NewOpenStream(old_process.get());
  ASSERT_TRUE(old_process->store->AppendAndWait(s, Records("before")).ok());
  auto new_process = Node(1);  // same node id, new node epoch
  ASSERT_TRUE(new_process->store->OpenStream(s).ok());
  auto zombie = old_process->store->AppendAndWait(s, Records("zombie"));
  EXPECT_TRUE(IsAborted(zombie.status())) << zombie.status();
  auto r = new_process->store->AppendAndWait(s, Records("after"));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->base_offset, 1);
  auto batches = ReadAll(new_process->store.get(), s);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[1]->payload.view(), "after");
}

TEST_F(StreamStoreTest, ReopeningAfterAStopContinuesAtTheCommittedEnd) {
  uint64_t s;
  {
    auto node = Node(1);
    s = NewOpenStream(node.get());
    for (int i = 0; i < 7; ++i) ASSERT_TRUE(node->store->AppendAndWait(s, Records("x", 2)).ok());
  }
  auto node = Node(1);
  ASSERT_TRUE(node->store->OpenStream(s).ok());
  auto r = node->store->AppendAndWait(s, Records("y"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->base_offset, 14);
  EXPECT_EQ(ReadAll(node->store.get(), s).size(), 8u);
}

// With 10% of PUTs failing (some after storing the object) and latency spikes, every
// acknowledged batch is readable at its offset exactly once and every append is answered once.
TEST_F(StreamStoreTest, FaultyObjectStoreLosesNothingAcknowledged) {
  auto node = Node(1);
  std::vector<uint64_t> streams;
  for (int i = 0; i < 3; ++i) streams.push_back(NewOpenStream(node.get()));
  object_store::FaultPlan faults;
  faults.fail_fraction = 0.10;
  faults.ambiguous_fraction = 0.3;
  faults.spike_fraction = 0.05;
  faults.spike_latency = std::chrono::milliseconds(40);
  faults.latency = std::chrono::milliseconds(1);
  mem_->SetFaults(faults);

  struct Ack {
    uint64_t stream;
    int64_t offset;
    std::string payload;
  };
  std::mutex mutex;
  std::vector<Ack> acks;                      // offsets filled in from `bases` at the end
  std::map<std::string, int64_t> bases;       // payload -> offset Append returned
  std::map<std::string, int> callbacks;  // payload -> times answered
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  constexpr int kPerThread = 150;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        uint64_t stream = streams[(t + i) % streams.size()];
        std::string payload = "t" + std::to_string(t) + "-" + std::to_string(i);
        auto done = std::make_shared<std::promise<void>>();
        // The callback may run before Append has returned the offset to this thread.
        auto r = node->store->Append(stream, Records(payload), [&, stream, payload, done](Status st) {
          std::lock_guard<std::mutex> lock(mutex);
          callbacks[payload]++;
          if (st.ok()) acks.push_back(Ack{stream, -1, payload});
          else ++failed;
          done->set_value();
        });
        if (!r.ok()) { ++failed; continue; }
        {
          std::lock_guard<std::mutex> lock(mutex);
          bases[payload] = *r;
        }
        if (i % 10 == 0) done->get_future().wait();  // mix waiting and pipelined appends
      }
    });
  }
  for (auto& th : threads) th.join();
  // Wait for every outstanding callback.
  for (int i = 0; i < 600; ++i) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (callbacks.size() + 0 >= static_cast<size_t>(4 * kPerThread)) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  mem_->SetFaults({});
  EXPECT_GT(mem_->injected_failures(), 0u);
  std::lock_guard<std::mutex> lock(mutex);
  ASSERT_EQ(callbacks.size(), static_cast<size_t>(4 * kPerThread));
  for (const auto& [payload, n] : callbacks) EXPECT_EQ(n, 1) << payload;
  EXPECT_GT(acks.size(), 0u);
  std::map<std::pair<uint64_t, int64_t>, std::string> stored;
  std::set<std::string> seen;
  for (uint64_t s : streams) {
    int64_t expect = 0;
    for (auto& b : ReadAll(node->store.get(), s)) {
      EXPECT_EQ(b->base_offset, expect);
      expect = b->end_offset();
      stored[{s, b->base_offset}] = b->payload.view();
      EXPECT_TRUE(seen.emplace(b->payload.view()).second) << "stored twice: " << b->payload.view();
    }
  }
  for (auto& ack : acks) {
    ASSERT_EQ(bases.count(ack.payload), 1u) << ack.payload << " acknowledged without an offset";
    ack.offset = bases[ack.payload];
    auto it = stored.find({ack.stream, ack.offset});
    ASSERT_NE(it, stored.end()) << "acknowledged " << ack.payload << " lost";
    EXPECT_EQ(it->second, ack.payload);
  }
}

TEST_F(StreamStoreTest, ACorruptObjectIsReportedAsDataLossNamingTheKey) {
  auto file = object_store::FileStore::Open(dir_ + "/objects");
  ASSERT_TRUE(file.ok());
  std::shared_ptr<object_store::ObjectStore> fs = std::move(*file);
  stores_ = StoreSet{fs, -2, fs, -3};
  uint64_t s;
  {
    auto node = Node(1);
    s = NewOpenStream(node.get());
    ASSERT_TRUE(node->store->AppendAndWait(s, Records(std::string(1000, 'v'))).ok());
  }
  auto listed = fs->List("wal/");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  std::string key = listed->front().key;
  std::string path = dir_ + "/objects/" + key;
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(500);
    f.put('X');
  }
  auto node = Node(1);
  auto r = node->store->Read(s, 0, 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find(key), std::string::npos) << r.status();
  // Truncated too.
  std::filesystem::resize_file(path, 300);
  auto node2 = Node(1);
  auto t = node2->store->Read(s, 0, 1 << 20);
  EXPECT_EQ(t.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(t.status().message().find(key), std::string::npos) << t.status();
  // Missing.
  std::filesystem::remove(path);
  auto node3 = Node(1);
  auto m = node3->store->Read(s, 0, 1 << 20);
  EXPECT_EQ(m.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(m.status().message().find(key), std::string::npos) << m.status();
}

TEST_F(StreamStoreTest, AVerifiedRunIsServedFromTheCacheAndACorruptOneIsNeverCached) {
  uint64_t s;
  {
    auto node = Node(1);
    s = NewOpenStream(node.get());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(node->store->AppendAndWait(s, Records(std::string(1000, 'a' + i))).ok());
    }
  }
  auto listed = mem_->List("wal/");
  ASSERT_TRUE(listed.ok());
  ASSERT_FALSE(listed->empty());

  // A reader without the writer's tail fetches each run once, then serves it from the cache.
  auto reader = Node(2);
  ASSERT_EQ(ReadAll(reader->store.get(), s).size(), 3u);
  const uint64_t fetched = reader->store->read_stats().object_reads;
  EXPECT_GE(fetched, 1u);
  auto again = ReadAll(reader->store.get(), s);
  ASSERT_EQ(again.size(), 3u);
  EXPECT_EQ(again[2]->payload.view(), std::string(1000, 'c'));
  EXPECT_EQ(reader->store->read_stats().object_reads, fetched);
  EXPECT_GE(reader->store->read_stats().cache_hits, fetched);

  // Damage every object. The cached runs were verified when fetched and stay served; a reader
  // with an empty cache gets DataLoss naming the key, every time: damaged bytes are never cached.
  for (const auto& info : *listed) {
    auto bytes = mem_->Get(info.key);
    ASSERT_TRUE(bytes.ok());
    std::string damaged = *bytes;
    damaged[100] ^= 0x5a;
    mem_->Overwrite(info.key, damaged);
  }
  EXPECT_EQ(ReadAll(reader->store.get(), s).size(), 3u);
  EXPECT_EQ(reader->store->read_stats().object_reads, fetched);
  auto fresh = Node(3);
  uint64_t first_attempt_reads = 0;
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = fresh->store->Read(s, 0, 1 << 20);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(r.status().message().find(listed->front().key), std::string::npos) << r.status();
    if (attempt == 0) first_attempt_reads = fresh->store->read_stats().object_reads;
  }
  // The second attempt fetched again everything the first did (a read fetches its segments at
  // once, so the first may fetch all three).
  EXPECT_GE(first_attempt_reads, 1u);
  EXPECT_EQ(fresh->store->read_stats().object_reads, 2 * first_attempt_reads);
  EXPECT_EQ(fresh->store->read_stats().cache_hits, 0u);
}

// A store whose ranged GETs wait `delay` (while `slow`), counting how many run at once.
class SlowGets : public object_store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<object_store::Buffer> GetRangeBuffer(std::string_view key, uint64_t offset,
                                              uint64_t length, object_store::Reuse reuse) override {
    const int now = ++in_flight;
    int seen = most_at_once.load();
    while (now > seen && !most_at_once.compare_exchange_weak(seen, now)) {
    }
    if (slow) std::this_thread::sleep_for(delay);
    --in_flight;
    return ForwardingStore::GetRangeBuffer(key, offset, length, reuse);
  }
  std::chrono::milliseconds delay{0};
  std::atomic<bool> slow{true};
  std::atomic<int> in_flight{0}, most_at_once{0};
};

TEST_F(StreamStoreTest, AReadFetchesItsSegmentsAtOnceAndAnswersWithWhatLoadedInItsBudget) {
  constexpr int kSegments = 40;
  uint64_t s;
  {
    auto writer = Node(1);
    s = NewOpenStream(writer.get());
    for (int i = 0; i < kSegments; ++i) {  // each append its own WAL object: a tiny segment
      ASSERT_TRUE(writer->store->AppendAndWait(s, Records("b" + std::to_string(i))).ok());
    }
  }
  auto slow = std::make_shared<SlowGets>(mem_);
  stores_ = StoreSet{slow, -2, slow, -3};
  auto reader = Node(2);

  // GETs slower than the read's budget: the read answers with the segments it had begun by
  // then (those run at once), not all forty one after another.
  slow->delay = StreamReader::kLoadBudget + std::chrono::milliseconds(200);
  auto first = reader->store->Read(s, 0, 1 << 20);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_GT(slow->most_at_once.load(), 1);
  ASSERT_FALSE(first->batches.empty());
  EXPECT_LT(first->batches.size(), static_cast<size_t>(kSegments));
  EXPECT_EQ(first->end_offset, kSegments);

  // Reading on from where it stopped gives the rest, in order, each batch once.
  slow->slow = false;
  std::vector<std::string> payloads;
  int64_t at = 0;
  std::vector<BatchPtr> batches = first->batches;
  while (true) {
    for (const BatchPtr& b : batches) {
      EXPECT_EQ(b->base_offset, at);
      payloads.emplace_back(b->payload.view());
      at = b->end_offset();
    }
    if (at >= kSegments) break;
    auto next = reader->store->Read(s, at, 1 << 20);
    ASSERT_TRUE(next.ok()) << next.status();
    ASSERT_FALSE(next->batches.empty());
    batches = next->batches;
  }
  ASSERT_EQ(payloads.size(), static_cast<size_t>(kSegments));
  for (int i = 0; i < kSegments; ++i) EXPECT_EQ(payloads[i], "b" + std::to_string(i));
}

TEST_F(StreamStoreTest, RecordTimeRangesSkipSegmentsWhoseRecordsAreAllOlder) {
  ManualClock clock;
  options_.compaction_min_age = std::chrono::milliseconds(0);
  options_.block_bytes = 1 << 20;  // one block: its bound is the largest of what it copies
  auto node = Node(1, &clock);
  uint64_t s = NewOpenStream(node.get());
  auto with_time = [](const std::string& payload, int32_t count, int64_t max_record_time) {
    BatchInput in = Records(payload, count);
    in.max_record_time_ms = max_record_time;
    return in;
  };
  // Record times around the commit time t0 (the clock stands still).
  const int64_t t0 = clock.NowMillis();
  ASSERT_TRUE(node->store->AppendAndWait(s, with_time("a", 2, t0 - 1000)).ok());  // [0, 2)
  ASSERT_TRUE(node->store->AppendAndWait(s, with_time("b", 3, t0 + 500)).ok());   // [2, 5)
  ASSERT_TRUE(node->store->AppendAndWait(s, with_time("c", 1, t0 - 500)).ok());   // [5, 6)
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("undeclared", 4)).ok());    // [6, 10)
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  // Only the segments that can hold a record at or after the time; the undeclared one counts
  // when it was committed no earlier than the slack before the time.
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 + 300, /*undeclared_slack_ms=*/0), (Ranges{{2, 5}}));
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 - 600, 0), (Ranges{{2, 10}}));
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 - 2000, 0), (Ranges{{0, 10}}));
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 + 300, 1000), (Ranges{{2, 5}, {6, 10}}));
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 + 600, 1000), (Ranges{{6, 10}}));
  EXPECT_TRUE(node->store->RecordTimeRanges(99, 0, 0).empty());
  // The bounds survive a restart (from the metadata log) and compaction, which merges all four
  // segments into one block whose bound is unknown (one source declared none).
  auto other = Node(2, &clock);
  EXPECT_EQ(other->store->RecordTimeRanges(s, t0 + 300, 0), (Ranges{{2, 5}}));
  ASSERT_TRUE(node->store->RunCompaction().ok());
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 + 300, 0), Ranges{});
  EXPECT_EQ(node->store->RecordTimeRanges(s, t0 + 300, 1000), (Ranges{{0, 10}}));
  // Without undeclared batches a compacted block keeps the largest bound of its sources.
  uint64_t s2 = NewOpenStream(node.get());
  ASSERT_TRUE(node->store->AppendAndWait(s2, with_time("x", 1, t0 + 100)).ok());
  ASSERT_TRUE(node->store->AppendAndWait(s2, with_time("y", 1, t0 + 700)).ok());
  ASSERT_TRUE(node->store->RunCompaction().ok());
  node->meta->Read([&](const metadata::State& st) {
    const auto* stream = st.FindStream(s2);
    ASSERT_EQ(stream->segments.size(), 1u);
    EXPECT_FALSE(IsWalKey(stream->segments.begin()->second.object_key));
    EXPECT_EQ(stream->segments.begin()->second.max_record_time_ms, t0 + 700);
  });
  EXPECT_EQ(node->store->RecordTimeRanges(s2, t0 + 600, 0), (Ranges{{0, 2}}));
  EXPECT_EQ(node->store->RecordTimeRanges(s2, t0 + 701, 0), Ranges{});
}

// A MemoryStore that records how each range read says it will be used.
class ReuseRecorder final : public object_store::ForwardingStore {
 public:
  using ForwardingStore::ForwardingStore;
  Result<object_store::Buffer> GetRangeBuffer(std::string_view key, uint64_t offset,
                                              uint64_t length, object_store::Reuse reuse) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reads_.push_back(reuse);
    }
    return ForwardingStore::GetRangeBuffer(key, offset, length, reuse);
  }

  std::vector<object_store::Reuse> TakeReads() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(reads_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<object_store::Reuse> reads_;
};

TEST_F(StreamStoreTest, ARunReadAgainAfterTheCacheDroppedItIsReadAsRereading) {
  options_.tail_bytes_per_stream = 0;  // every read goes to the objects
  options_.block_cache_bytes = 1;      // and none is kept
  auto recorder = std::make_shared<ReuseRecorder>(mem_);
  stores_ = StoreSet{recorder, -2, recorder, -3};
  auto node = Node(1);
  uint64_t s = NewOpenStream(node.get());
  ASSERT_TRUE(node->store->AppendAndWait(s, Records("only")).ok());
  recorder->TakeReads();
  using object_store::Reuse;
  for (Reuse expected : {Reuse::kFirstRead, Reuse::kRereading, Reuse::kRereading}) {
    auto r = node->store->Read(s, 0, 1 << 20);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->batches.at(0)->payload, "only");
    EXPECT_EQ(recorder->TakeReads(), std::vector<Reuse>{expected});
  }
}

// Runs of 64 KiB or more are read from files with O_DIRECT the first time (an aligned block
// around a range that starts anywhere in its object) and through the page cache when read again;
// both must give back exactly what was written.
TEST_F(StreamStoreTest, LargeRunsReadBackExactlyFromFilesFirstAndAgain) {
  auto file = object_store::FileStore::Open(dir_ + "/objects");
  ASSERT_TRUE(file.ok());
  std::shared_ptr<object_store::ObjectStore> fs = std::move(*file);
  stores_ = StoreSet{fs, -2, fs, -3};
  options_.tail_bytes_per_stream = 0;     // every read goes to the objects
  options_.block_cache_bytes = 512 << 10;  // a few runs: the second pass reads most again
  auto node = Node(1);
  const uint64_t streams[2] = {NewOpenStream(node.get()), NewOpenStream(node.get())};
  std::mt19937_64 rng(11);
  std::map<uint64_t, std::vector<std::string>> written;
  std::mutex mutex;
  std::condition_variable acked_cv;
  int acked = 0, sent = 0;
  for (int i = 0; i < 24; ++i) {
    for (uint64_t s : streams) {
      // 70-130 KiB, so runs start and end off 4 KiB boundaries.
      std::string payload(70'000 + rng() % 60'000, '\0');
      for (auto& c : payload) c = static_cast<char>(rng());
      written[s].push_back(payload);
      ++sent;
      // Both streams' appends share WAL objects: each object holds runs at odd positions.
      ASSERT_TRUE(node->store->Append(s, Records(payload), [&](Status st) {
        EXPECT_TRUE(st.ok()) << st;
        std::lock_guard<std::mutex> lock(mutex);
        ++acked;
        acked_cv.notify_all();
      }).ok());
    }
  }
  {
    std::unique_lock<std::mutex> lock(mutex);
    ASSERT_TRUE(acked_cv.wait_for(lock, std::chrono::seconds(30), [&] { return acked == sent; }));
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t s : streams) {
      auto batches = ReadAll(node->store.get(), s);
      ASSERT_EQ(batches.size(), written[s].size()) << "pass " << pass;
      for (size_t i = 0; i < batches.size(); ++i) {
        EXPECT_EQ(batches[i]->payload.view(), written[s][i]) << "pass " << pass << " batch " << i;
      }
    }
  }
}

}  // namespace
}  // namespace mink::storage
