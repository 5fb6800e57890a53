#include "bench_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

namespace mink::bench {

namespace {

using Micros = std::chrono::microseconds;

constexpr int kMaxSmallSyncs = 200;

extern "C" void OnStopSignal(int) { g_interrupted.store(true); }

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

std::atomic<bool> g_interrupted{false};

void InstallStopSignals() {
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
}

double Seconds(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}

Distribution Summarize(std::vector<int64_t> us) {
  Distribution d;
  d.count = us.size();
  if (us.empty()) return d;
  std::sort(us.begin(), us.end());
  auto rank = [&](double q) {
    size_t i = static_cast<size_t>(q * static_cast<double>(us.size()) + 0.999999);
    return us[std::clamp<size_t>(i, 1, us.size()) - 1] / 1000.0;
  };
  double sum = 0;
  for (int64_t v : us) sum += static_cast<double>(v);
  d.p50_ms = rank(0.50);
  d.p99_ms = rank(0.99);
  d.max_ms = us.back() / 1000.0;
  d.mean_ms = sum / static_cast<double>(us.size()) / 1000.0;
  return d;
}

std::string RandomBytes(size_t n, uint64_t seed) {
  std::string out(n, '\0');
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return out;
}

DiskResult MeasureDisk(const std::string& dir, int seconds, int writers) {
  DiskResult r;
  const std::string data = RandomBytes(kDiskFileBytes, 1);
  std::mutex mutex;
  std::vector<int64_t> file_us;
  std::vector<std::string> paths;
  int next = 0;
  const SteadyTime start = SteadyNow();
  const SteadyTime deadline = start + std::chrono::seconds(seconds);
  auto writer = [&] {
    while (!g_interrupted.load()) {
      std::string path;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= kMaxDiskFiles || !r.error.empty()) return;
        if (next >= writers && SteadyNow() >= deadline) return;
        path = dir + "/disk-" + std::to_string(next++);
        paths.push_back(path);
      }
      SteadyTime t = SteadyNow();
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      bool ok = fd >= 0 && WriteAll(fd, data) && ::fdatasync(fd) == 0;
      int err = errno;
      if (fd >= 0) ::close(fd);
      std::lock_guard<std::mutex> lock(mutex);
      if (!ok) {
        r.error = "write/fdatasync " + path + ": " + std::strerror(err);
        return;
      }
      file_us.push_back(std::chrono::duration_cast<Micros>(SteadyNow() - t).count());
      ++r.files;
      r.bytes += data.size();
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < writers; ++i) threads.emplace_back(writer);
  for (auto& t : threads) t.join();
  r.seconds = Seconds(start, SteadyNow());
  r.mb_s = r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds / 1e6 : 0;
  r.file_time = Summarize(std::move(file_us));
  for (const auto& p : paths) ::unlink(p.c_str());
  return r;
}

Distribution MeasureSmallSync(const std::string& dir) {
  std::string path = dir + "/disk-small";
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return {};
  const std::string page = RandomBytes(4096, 2);
  std::vector<int64_t> us;
  const SteadyTime deadline = SteadyNow() + std::chrono::seconds(2);
  for (int i = 0; i < kMaxSmallSyncs && SteadyNow() < deadline && !g_interrupted.load(); ++i) {
    SteadyTime t = SteadyNow();
    if (!WriteAll(fd, page) || ::fdatasync(fd) != 0) break;
    us.push_back(std::chrono::duration_cast<Micros>(SteadyNow() - t).count());
  }
  ::close(fd);
  ::unlink(path.c_str());
  return Summarize(std::move(us));
}

}  // namespace mink::bench
