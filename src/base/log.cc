#include "base/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace mink::log {
namespace {

std::atomic<Level> g_level{Level::kInfo};
std::atomic<Format> g_format{Format::kText};
std::mutex g_write_mutex;

const char* LevelName(Level level) {
  switch (level) {
    case Level::kDebug: return "DEBUG";
    case Level::kInfo: return "INFO";
    case Level::kWarn: return "WARN";
    case Level::kError: return "ERROR";
    case Level::kOff: return "OFF";
  }
  return "?";
}

// `text` as a JSON string's contents: quotes, backslashes and control characters escaped.
void AppendJsonEscaped(std::string_view text, std::string* out) {
  for (unsigned char c : text) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (c < 0x20) {
          out->append(fmt::format("\\u{:04x}", c));
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
}

}  // namespace

void SetLevel(Level level) { g_level.store(level); }
void SetFormat(Format format) { g_format.store(format); }

bool ParseFormat(std::string_view text, Format* out) {
  if (text == "text") *out = Format::kText;
  else if (text == "json") *out = Format::kJson;
  else return false;
  return true;
}
Level GetLevel() { return g_level.load(std::memory_order_relaxed); }

bool ParseLevel(std::string_view text, Level* out) {
  if (text == "debug") *out = Level::kDebug;
  else if (text == "info") *out = Level::kInfo;
  else if (text == "warn") *out = Level::kWarn;
  else if (text == "error") *out = Level::kError;
  else if (text == "off") *out = Level::kOff;
  else return false;
  return true;
}

std::string FormatLine(Format format, int64_t millis, Level level, std::string_view component,
                       std::string_view message) {
  std::time_t secs = static_cast<std::time_t>(millis / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
  if (format == Format::kText) {
    return fmt::format("{}.{:03d}Z {} {}: {}\n", stamp, static_cast<int>(millis % 1000), LevelName(level), component,
                       message);
  }
  std::string level_name = LevelName(level);
  for (char& c : level_name) c = static_cast<char>(c - 'A' + 'a');
  std::string line = fmt::format("{{\"time\":\"{}.{:03d}Z\",\"level\":\"{}\",\"component\":\"", stamp,
                                 static_cast<int>(millis % 1000), level_name);
  AppendJsonEscaped(component, &line);
  line.append("\",\"message\":\"");
  AppendJsonEscaped(message, &line);
  line.append("\"}\n");
  return line;
}

void Write(Level level, std::string_view component, std::string_view message) {
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string line = FormatLine(g_format.load(std::memory_order_relaxed), millis, level, component, message);
  std::lock_guard<std::mutex> lock(g_write_mutex);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace mink::log
