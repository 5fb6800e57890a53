#include "bench_util.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "base/thread_priority.h"

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

int64_t SteadyMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(SteadyNow().time_since_epoch()).count();
}

double ProcessCpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto s = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
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

std::map<int, ThreadSample> SampleThreads() {
  std::map<int, ThreadSample> out;
  static const double kTicks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::error_code ec;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    if (++count > 4096) break;
    ThreadSample sample;
    if (std::FILE* f = std::fopen((entry.path() / "stat").c_str(), "r")) {
      char line[1024];
      const size_t n = std::fread(line, 1, sizeof(line) - 1, f);
      std::fclose(f);
      line[n] = '\0';
      // "tid (name) state ...": the name may hold spaces and ')', so split at the last ')'.
      const char* open = std::strchr(line, '(');
      const char* close = std::strrchr(line, ')');
      if (open == nullptr || close == nullptr || close < open) continue;
      sample.name.assign(open + 1, close);
      unsigned long long utime = 0, stime = 0;
      // After the name: state, then 10 fields, then utime and stime.
      if (std::sscanf(close + 2, "%*c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu", &utime,
                      &stime) == 2) {
        sample.cpu_seconds = static_cast<double>(utime + stime) / kTicks;
      }
    } else {
      continue;  // ended meanwhile
    }
    if (std::FILE* f = std::fopen((entry.path() / "schedstat").c_str(), "r")) {
      unsigned long long run = 0, wait = 0;
      if (std::fscanf(f, "%llu %llu", &run, &wait) == 2) sample.run_delay_ns = wait;
      std::fclose(f);
    }
    out[std::atoi(entry.path().filename().c_str())] = std::move(sample);
  }
  return out;
}

std::map<int, uint64_t> RunDelays() {
  std::map<int, uint64_t> out;
  for (const auto& [tid, sample] : SampleThreads()) out[tid] = sample.run_delay_ns;
  return out;
}

PauseWatch::PauseWatch() : thread_([this] { Run(); }) {}

PauseWatch::~PauseWatch() {
  stop_.store(true);
  thread_.join();
}

void PauseWatch::Run() {
  NameThisThread("bench-pauses");  // a client thread in the benchmarks' CPU split
  sched_param param{};
  param.sched_priority = 1;  // the lowest real-time priority still preempts every normal thread
  const bool realtime = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &param) == 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current_.realtime = realtime;
  }
  constexpr auto kTick = std::chrono::milliseconds(1);
  while (!stop_.load()) {
    const SteadyTime before = SteadyNow();
    std::this_thread::sleep_for(kTick);
    const double over =
        std::chrono::duration<double, std::milli>(SteadyNow() - before - kTick).count();
    if (over <= kPauseMs) continue;
    std::lock_guard<std::mutex> lock(mutex_);
    ++current_.pauses;
    current_.paused_ms += over;
    current_.max_ms = std::max(current_.max_ms, over);
  }
}

PauseWatch::Reading PauseWatch::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  Reading r = current_;
  current_ = Reading{};
  current_.realtime = r.realtime;
  return r;
}

std::string PauseWatch::Describe(const Reading& r) {
  return fmt::format("machine paused {} times over {:.0f} ms, {:.0f} ms in all, longest {:.1f} ms{}",
                     r.pauses, kPauseMs, r.paused_ms, r.max_ms,
                     r.realtime ? "" : " (watcher not real-time: also counts CPU contention)");
}

}  // namespace mink::bench
