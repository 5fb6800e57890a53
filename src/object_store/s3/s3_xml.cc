#include "object_store/s3/s3_xml.h"

#include <cstdio>
#include <ctime>

#include "base/strings.h"

namespace mink::object_store {
namespace {

// Appends `code` as UTF-8.
bool AppendUtf8(uint32_t code, std::string* out) {
  if (code == 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
  return true;
}

Result<std::string> RequiredText(std::string_view xml, std::string_view tag,
                                 std::string_view what) {
  auto elements = XmlElements(xml, tag);
  if (elements.empty()) {
    return DataLossError("S3 " + std::string(what) + " response has no <" + std::string(tag) +
                         "> element");
  }
  return XmlUnescape(elements.front());
}

}  // namespace

std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag);
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t after = pos + open.size();
    if (after >= xml.size()) break;
    char next = xml[after];
    if (next != '>' && next != ' ' && next != '/' && next != '\t' && next != '\n' && next != '\r') {
      pos = after;  // a longer tag name that starts the same, e.g. <KeyCount> for <Key>
      continue;
    }
    size_t tag_end = xml.find('>', after);
    if (tag_end == std::string_view::npos) break;
    if (xml[tag_end - 1] == '/') {  // <tag/>
      out.push_back(std::string_view());
      pos = tag_end + 1;
      continue;
    }
    size_t end = xml.find(close, tag_end + 1);
    if (end == std::string_view::npos) break;
    out.push_back(xml.substr(tag_end + 1, end - tag_end - 1));
    pos = end + close.size();
  }
  return out;
}

std::optional<std::string> XmlFirstText(std::string_view xml, std::string_view tag) {
  auto elements = XmlElements(xml, tag);
  if (elements.empty()) return std::nullopt;
  auto text = XmlUnescape(elements.front());
  if (!text.ok()) return std::string(elements.front());
  return *text;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

Result<std::string> XmlUnescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      return DataLossError("bad XML entity in '" + std::string(text.substr(i, 12)) + "'");
    }
    std::string_view entity = text.substr(i + 1, semi - i - 1);
    if (entity == "amp") {
      out.push_back('&');
    } else if (entity == "lt") {
      out.push_back('<');
    } else if (entity == "gt") {
      out.push_back('>');
    } else if (entity == "quot") {
      out.push_back('"');
    } else if (entity == "apos") {
      out.push_back('\'');
    } else if (entity.size() >= 2 && entity[0] == '#') {
      bool hex = entity[1] == 'x' || entity[1] == 'X';
      std::string_view digits = entity.substr(hex ? 2 : 1);
      uint32_t code = 0;
      bool ok = !digits.empty();
      for (char c : digits) {
        int v = (c >= '0' && c <= '9')          ? c - '0'
                : (hex && c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (hex && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                : -1;
        if (v < 0 || code > 0x10FFFF) {
          ok = false;
          break;
        }
        code = code * (hex ? 16 : 10) + static_cast<uint32_t>(v);
      }
      if (!ok || !AppendUtf8(code, &out)) {
        return DataLossError("bad XML character reference '&" + std::string(entity) + ";'");
      }
    } else {
      return DataLossError("unknown XML entity '&" + std::string(entity) + ";'");
    }
    i = semi;
  }
  return out;
}

Result<int64_t> ParseIso8601Millis(std::string_view text) {
  std::string s(Trim(text));
  std::tm tm{};
  int millis = 0;
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6 ||
      consumed != 19) {
    return DataLossError("bad ISO 8601 time '" + s + "'");
  }
  std::string_view rest = std::string_view(s).substr(19);
  if (!rest.empty() && rest[0] == '.') {
    // Fractional seconds: keep the first three digits.
    size_t i = 1;
    int scale = 100;
    for (; i < rest.size() && rest[i] >= '0' && rest[i] <= '9'; ++i) {
      millis += (rest[i] - '0') * scale;
      scale /= 10;
    }
    rest = rest.substr(i);
  }
  if (rest != "Z" && rest != "+00:00" && !rest.empty()) {
    return DataLossError("ISO 8601 time '" + s + "' is not in UTC");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t seconds = timegm(&tm);
  if (seconds == static_cast<time_t>(-1)) return DataLossError("bad ISO 8601 time '" + s + "'");
  return static_cast<int64_t>(seconds) * 1000 + millis;
}

Result<ListObjectsPage> ParseListObjectsV2(std::string_view xml) {
  if (XmlElements(xml, "ListBucketResult").empty()) {
    return DataLossError("S3 list response is not a ListBucketResult");
  }
  ListObjectsPage page;
  for (std::string_view contents : XmlElements(xml, "Contents")) {
    ObjectInfo info;
    MINK_ASSIGN_OR_RETURN(info.key, RequiredText(contents, "Key", "list"));
    MINK_ASSIGN_OR_RETURN(std::string size, RequiredText(contents, "Size", "list"));
    auto parsed_size = ParseUint64(size);
    if (!parsed_size.ok()) return DataLossError("S3 list: bad <Size> '" + size + "'");
    info.size = *parsed_size;
    MINK_ASSIGN_OR_RETURN(std::string modified, RequiredText(contents, "LastModified", "list"));
    MINK_ASSIGN_OR_RETURN(info.last_modified_ms, ParseIso8601Millis(modified));
    page.objects.push_back(std::move(info));
  }
  page.truncated = XmlFirstText(xml, "IsTruncated").value_or("false") == "true";
  if (page.truncated) {
    MINK_ASSIGN_OR_RETURN(page.next_token, RequiredText(xml, "NextContinuationToken", "list"));
    if (page.next_token.empty()) {
      return DataLossError("S3 list response is truncated but has an empty continuation token");
    }
  }
  return page;
}

Result<std::string> ParseUploadId(std::string_view xml) {
  MINK_ASSIGN_OR_RETURN(std::string id, RequiredText(xml, "UploadId", "initiate multipart"));
  if (id.empty()) return DataLossError("S3 initiate multipart response has an empty UploadId");
  return id;
}

std::optional<S3ErrorBody> ParseS3Error(std::string_view xml) {
  auto errors = XmlElements(xml, "Error");
  if (errors.empty()) return std::nullopt;
  S3ErrorBody error;
  error.code = XmlFirstText(errors.front(), "Code").value_or("");
  error.message = XmlFirstText(errors.front(), "Message").value_or("");
  error.request_id = XmlFirstText(errors.front(), "RequestId").value_or("");
  return error;
}

std::string CompleteMultipartUploadXml(const std::vector<std::string>& etags) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
           XmlEscape(etags[i]) + "</ETag></Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

}  // namespace mink::object_store
