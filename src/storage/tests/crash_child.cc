// The writer half of the crash test: appends numbered records to stream 1 as fast as it can and
// records every acknowledged offset in an append-only log, until it is killed (or 60 s pass).
// Usage: storage_crash_child <meta-url> <objects-dir> <ack-log> <run-id>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "metadata/metadata_log.h"
#include "object_store/file_store.h"
#include "storage/stream_store.h"

using namespace mink;

namespace {

void WriteLine(int fd, const std::string& line) {
  // One write() per line with O_APPEND: whole lines, even from several threads; the page cache
  // keeps them across SIGKILL of this process.
  (void)!::write(fd, line.data(), line.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <meta-url> <objects-dir> <ack-log> <run-id>\n", argv[0]);
    return 2;
  }
  std::string run = argv[4];
  int fd = ::open(argv[3], O_WRONLY | O_CREAT | O_APPEND, 0644);
  auto meta = metadata::MetadataLog::Open(argv[1]);
  if (!meta.ok()) return 3;
  auto node = storage::StreamStore::RegisterNode(meta->get(), 1);
  if (!node.ok()) return 4;
  auto fs = object_store::FileStore::Open(argv[2]);
  if (!fs.ok()) return 5;
  std::shared_ptr<object_store::ObjectStore> objects = std::move(*fs);
  storage::StorageOptions options;
  options.wal_flush_interval = std::chrono::milliseconds(5);
  auto store = storage::StreamStore::Open(options, meta->get(),
                                          storage::StoreSet{objects, -2, objects, -3}, *node,
                                          /*maintenance=*/false);
  if (!store.ok()) return 6;
  bool exists = (*meta)->Read([](const metadata::State& s) { return s.FindStream(1) != nullptr; });
  if (!exists && !(*store)->CreateStream("crash").ok()) return 7;
  if (!(*store)->OpenStream(1).ok()) return 8;
  int64_t end = (*meta)->Read([](const metadata::State& s) { return s.FindStream(1)->end_offset; });
  WriteLine(fd, "open " + run + " " + std::to_string(end) + "\n");

  std::atomic<int64_t> counter{0};
  auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([&] {
      while (std::chrono::steady_clock::now() - started < std::chrono::seconds(60)) {
        int64_t n = counter++;
        storage::BatchInput in;
        in.record_count = 1 + static_cast<int32_t>(n % 3);
        in.payload = "r" + run + "-" + std::to_string(n);
        std::string payload = in.payload;
        auto r = (*store)->AppendAndWait(1, std::move(in));
        if (r.ok()) WriteLine(fd, "ack " + std::to_string(r->base_offset) + " " + payload + "\n");
      }
    });
  }
  for (auto& w : writers) w.join();
  return 0;
}
