// kv_bench: the working copy of a primary-key bucket (src/kv) on its own: writes into RocksDB,
// an incremental snapshot after 1% of the keys changed, a restore from a file:// store into an
// empty cache directory, and batched point lookups. Bounded by --keys and --lookup-seconds.
//
//   kv_bench [--keys 1000000] [--value-bytes 200] [--memory-mib 256] [--dir /tmp/kv-bench]

#include <sys/resource.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <atomic>
#include <random>
#include <thread>
#include <string>

#include "bench_util.h"
#include "kv/kv_snapshot.h"
#include "object_store/file_store.h"

using namespace mink;

namespace {

std::string Key(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "key%016llu", static_cast<unsigned long long>(i));
  return buf;
}

// Values that compress about as much as rows of mixed text and numbers do (not at all).
std::string Value(std::mt19937_64* rng, size_t bytes) {
  std::string v(bytes, ' ');
  for (auto& c : v) c = static_cast<char>('a' + (*rng)() % 26);
  return v;
}

int Fail(const Status& s) {
  std::cerr << "kv_bench: " << s.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kv_bench: RocksDB working copies and incremental snapshots"};
  uint64_t keys = 1'000'000, value_bytes = 200, memory_mib = 256;
  double lookup_seconds = 3;
  int lookup_threads = 2;
  std::string dir = "/tmp/kv-bench";
  app.add_option("--keys", keys);
  app.add_option("--value-bytes", value_bytes);
  app.add_option("--memory-mib", memory_mib);
  app.add_option("--lookup-seconds", lookup_seconds);
  app.add_option("--lookup-threads", lookup_threads);
  app.add_option("--dir", dir);
  CLI11_PARSE(app, argc, argv);
  std::filesystem::remove_all(dir);
  auto objects = object_store::FileStore::Open(dir + "/objects");
  if (!objects.ok()) return Fail(objects.status());
  auto env = kv::KvEnvironment::Open(dir + "/cache-a", memory_mib << 20);
  if (!env.ok()) return Fail(env.status());
  auto store = (*env)->Create(1);
  if (!store.ok()) return Fail(store.status());
  std::mt19937_64 rng(42);

  // 1. Writes of new keys, 4096 a batch.
  auto t0 = SteadyNow();
  for (uint64_t first = 0; first < keys; first += 4096) {
    std::vector<kv::KvChange> changes;
    for (uint64_t i = first; i < std::min(keys, first + 4096); ++i) changes.push_back({Key(i), Value(&rng, value_bytes)});
    if (Status s = (*store)->Apply(changes); !s.ok()) return Fail(s);
  }
  const double write_s = bench::Seconds(t0, SteadyNow());
  std::cout << "writes: " << keys << " new keys in " << write_s << " s = " << keys / write_s << " keys/s\n";

  // 2. A full snapshot, 1% of the keys changed, an incremental one.
  auto snapshot = [&](int64_t offset) -> Result<kv::UploadedSnapshot> {
    MINK_ASSIGN_OR_RETURN(auto checkpoint, (*store)->MakeCheckpoint());
    MINK_ASSIGN_OR_RETURN(auto up, kv::UploadCheckpoint(objects->get(), env->get(), **store, *checkpoint, offset, 0, ""));
    (*store)->set_stored_files({up.manifest.files.begin(), up.manifest.files.end()});
    return up;
  };
  t0 = SteadyNow();
  auto first = snapshot(1);
  if (!first.ok()) return Fail(first.status());
  std::cout << "snapshot 1: " << first->uploaded_bytes << " of " << first->state_bytes << " bytes uploaded in "
            << bench::Seconds(t0, SteadyNow()) << " s, " << first->manifest.files.size() << " files\n";
  for (uint64_t n = 0; n < keys / 100; n += 4096) {
    std::vector<kv::KvChange> changes;
    for (uint64_t j = n; j < std::min(keys / 100, n + 4096); ++j) changes.push_back({Key(rng() % keys), Value(&rng, value_bytes)});
    if (Status s = (*store)->Apply(changes); !s.ok()) return Fail(s);
  }
  t0 = SteadyNow();
  auto second = snapshot(2);
  if (!second.ok()) return Fail(second.status());
  std::cout << "snapshot 2 after 1% of keys changed: " << second->uploaded_bytes << " of " << second->state_bytes
            << " bytes uploaded = " << 100.0 * second->uploaded_bytes / second->state_bytes << "% in "
            << bench::Seconds(t0, SteadyNow()) << " s\n";

  // 3. A restore into an empty cache directory (another machine).
  auto other = kv::KvEnvironment::Open(dir + "/cache-b", memory_mib << 20);
  if (!other.ok()) return Fail(other.status());
  t0 = SteadyNow();
  kv::RestoreStats stats;
  auto restored = kv::RestoreSnapshot(objects->get(), other->get(), 1, second->manifest, &stats);
  if (!restored.ok()) return Fail(restored.status());
  std::cout << "restore from file:// of " << second->state_bytes << " bytes: " << bench::Seconds(t0, SteadyNow())
            << " s (" << stats.fetched_files << " files fetched)\n";

  // 4. Point lookups, 1000 keys a multi-get, for --lookup-seconds, on --lookup-threads threads
  // (a node serves concurrent lookup requests on as many).
  std::atomic<uint64_t> looked{0}, found{0};
  std::atomic<bool> failed{false};
  t0 = SteadyNow();
  const auto until = t0 + std::chrono::milliseconds(static_cast<int64_t>(lookup_seconds * 1000));
  std::vector<std::thread> lookers;
  for (int t = 0; t < lookup_threads; ++t) {
    lookers.emplace_back([&, t] {
      std::mt19937_64 mine(1000 + t);
      while (SteadyNow() < until && !failed) {
        std::vector<std::string> batch;
        for (int i = 0; i < 1000; ++i) batch.push_back(Key(mine() % keys));
        auto got = (*restored)->MultiGet(batch);
        if (!got.ok()) {
          failed = true;
          return;
        }
        for (const auto& v : *got) found += v.has_value();
        looked += batch.size();
      }
    });
  }
  for (auto& t : lookers) t.join();
  if (failed) return Fail(InternalError("a multi-get failed"));
  const double lookup_s = bench::Seconds(t0, SteadyNow());
  std::cout << "lookups: " << looked << " keys (" << found << " found) in " << lookup_s << " s = " << looked / lookup_s
            << " keys/s in batches of 1000 on " << lookup_threads << " threads; memory used "
            << ((*other)->MemoryUsage() >> 20) << " MiB of " << memory_mib << "\n";
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::cout << "rss: " << (usage.ru_maxrss >> 10) << " MiB peak\n";
  return 0;
}
