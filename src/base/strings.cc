#include "base/strings.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>

namespace mink {

std::vector<std::string> Split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.emplace_back(text.substr(start));
      return parts;
    }
    parts.emplace_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' ||
                           text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' ||
                           text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

Result<int64_t> ParseInt64(std::string_view text) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return InvalidArgumentError("not an integer: '" + std::string(text) + "'");
  }
  return value;
}

Result<uint64_t> ParseUint64(std::string_view text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return InvalidArgumentError("not a non-negative integer: '" + std::string(text) + "'");
  }
  return value;
}

Result<double> ParseDouble(std::string_view text) {
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (copy.empty() || errno != 0 || end != copy.c_str() + copy.size()) {
    return InvalidArgumentError("not a number: '" + copy + "'");
  }
  return value;
}

Result<bool> ParseBool(std::string_view text) {
  if (text == "true" || text == "1" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "0" || text == "no" || text == "off") return false;
  return InvalidArgumentError("not a boolean: '" + std::string(text) + "'");
}

namespace {

// Splits "250ms" into 250 and "ms".
Status SplitNumberUnit(std::string_view text, uint64_t* number, std::string_view* unit) {
  size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
  if (i == 0) return InvalidArgumentError("expected a number in '" + std::string(text) + "'");
  auto parsed = ParseUint64(text.substr(0, i));
  if (!parsed.ok()) return parsed.status();
  *number = *parsed;
  *unit = Trim(text.substr(i));
  return Status::Ok();
}

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  uint64_t n = 0;
  std::string_view unit;
  MINK_RETURN_IF_ERROR(SplitNumberUnit(Trim(text), &n, &unit));
  int64_t v = static_cast<int64_t>(n);
  if (unit.empty() || unit == "ms") return std::chrono::milliseconds(v);
  if (unit == "s") return std::chrono::milliseconds(v * 1000);
  if (unit == "m" || unit == "min") return std::chrono::milliseconds(v * 60'000);
  if (unit == "h") return std::chrono::milliseconds(v * 3'600'000);
  if (unit == "d") return std::chrono::milliseconds(v * 86'400'000);
  return InvalidArgumentError("unknown duration unit in '" + std::string(text) +
                              "' (use ms, s, m, h or d)");
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  uint64_t n = 0;
  std::string_view unit;
  MINK_RETURN_IF_ERROR(SplitNumberUnit(Trim(text), &n, &unit));
  if (unit.empty() || unit == "B") return n;
  if (unit == "KiB" || unit == "K" || unit == "KB") return n << 10;
  if (unit == "MiB" || unit == "M" || unit == "MB") return n << 20;
  if (unit == "GiB" || unit == "G" || unit == "GB") return n << 30;
  return InvalidArgumentError("unknown size unit in '" + std::string(text) +
                              "' (use B, KiB, MiB or GiB)");
}

std::string HexEncode(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

Result<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0) return InvalidArgumentError("hex string has an odd length");
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      return InvalidArgumentError("not a hex digit at position " + std::to_string(i));
    }
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve(4 * ((bytes.size() + 2) / 3));
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = 0;
    for (size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0);
    for (size_t k = 0; k < 4; ++k) out.push_back(k <= n ? kAlphabet[(v >> (18 - 6 * k)) & 63] : '=');
  }
  return out;
}

}  // namespace mink
