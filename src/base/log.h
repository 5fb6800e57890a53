#pragma once
// A small logging facade: one line per event, `time LEVEL component: message key=value ...`.
// Levels: debug (per batch/object), info (lifecycle), warn (recovered anomaly), error (lost or
// refused work). Never log per record, never log credentials.

#include <fmt/format.h>

#include <string_view>

namespace mink::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

void SetLevel(Level level);
Level GetLevel();
// Parses "debug", "info", "warn", "error", "off".
bool ParseLevel(std::string_view text, Level* out);
void Write(Level level, std::string_view component, std::string_view message);

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
