#pragma once
// A small logging facade: one line per event on stderr, as text,
//   `time LEVEL component: message key=value ...`,
// or as JSON (SetFormat(kJson), `mink serve --log-format json`), one object per line with the
// stable keys time (ISO 8601, UTC, milliseconds), level (debug, info, warn, error), component
// and message. Levels: debug (per batch/object/request), info (lifecycle), warn (recovered
// anomaly), error (lost or refused work). Never log per record, never log credentials.

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mink::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

enum class Format { kText, kJson };

void SetLevel(Level level);
void SetFormat(Format format);
// Parses "text", "json".
bool ParseFormat(std::string_view text, Format* out);
Level GetLevel();
// Parses "debug", "info", "warn", "error", "off".
bool ParseLevel(std::string_view text, Level* out);
void Write(Level level, std::string_view component, std::string_view message);
// The line Write writes (with its newline), in `format`, at `millis` since the epoch.
std::string FormatLine(Format format, int64_t millis, Level level, std::string_view component,
                       std::string_view message);

template <typename... Args>
void Log(Level level, std::string_view component, fmt::format_string<Args...> f, Args&&... args) {
  if (level < GetLevel()) return;
  Write(level, component, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace mink::log

#define MINK_LOG_DEBUG(component, ...) ::mink::log::Log(::mink::log::Level::kDebug, component, __VA_ARGS__)
#define MINK_LOG_INFO(component, ...) ::mink::log::Log(::mink::log::Level::kInfo, component, __VA_ARGS__)
#define MINK_LOG_WARN(component, ...) ::mink::log::Log(::mink::log::Level::kWarn, component, __VA_ARGS__)
#define MINK_LOG_ERROR(component, ...) ::mink::log::Log(::mink::log::Level::kError, component, __VA_ARGS__)
