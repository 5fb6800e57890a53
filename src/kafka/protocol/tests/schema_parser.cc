// The schema notation of response_schemas.txt read into a SchemaSet (schema_reader.h).

#include <fstream>
#include <sstream>
#include <utility>

#include "kafka/protocol/tests/schema_reader.h"
#include "kafka/protocol/tests/schema_text.h"

namespace mink::kafka::testing {

bool ParseInt(std::string_view s, int* out) {
  if (s.empty() || s.size() > 6) return false;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

std::string RangeText(VersionRange r) {
  if (r.empty()) return "none";
  if (r.max == kMaxVersion) return std::to_string(r.min) + "+";
  if (r.min == r.max) return std::to_string(r.min);
  return std::to_string(r.min) + "-" + std::to_string(r.max);
}

namespace {

// ---------------------------------------------------------------------------------------------
// Parsing the notation.

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

Status LineError(int line, std::string what) {
  return InvalidArgumentError("response schema line " + std::to_string(line) + ": " +
                              std::move(what));
}


// "N", "N+", "N-M" or "none".
bool ParseRange(std::string_view s, VersionRange* out) {
  if (s == "none") {
    *out = VersionRange{0, -1};
    return true;
  }
  if (!s.empty() && s.back() == '+') {
    int min;
    if (!ParseInt(s.substr(0, s.size() - 1), &min)) return false;
    *out = VersionRange{min, kMaxVersion};
    return true;
  }
  size_t dash = s.find('-');
  if (dash == std::string_view::npos) {
    int v;
    if (!ParseInt(s, &v)) return false;
    *out = VersionRange{v, v};
    return true;
  }
  int min, max;
  if (!ParseInt(s.substr(0, dash), &min) || !ParseInt(s.substr(dash + 1), &max)) return false;
  if (max < min) return false;
  *out = VersionRange{min, max};
  return true;
}


VersionRange Intersect(VersionRange a, VersionRange b) {
  return VersionRange{a.min > b.min ? a.min : b.min, a.max < b.max ? a.max : b.max};
}

bool ParsePrimitive(std::string_view s, SchemaType* out) {
  static constexpr std::pair<std::string_view, SchemaType> kTypes[] = {
      {"int8", SchemaType::kInt8},   {"int16", SchemaType::kInt16},
      {"int32", SchemaType::kInt32}, {"int64", SchemaType::kInt64},
      {"bool", SchemaType::kBool},   {"string", SchemaType::kString},
      {"bytes", SchemaType::kBytes}, {"records", SchemaType::kRecords},
      {"uuid", SchemaType::kUuid},
  };
  for (const auto& [name, type] : kTypes) {
    if (s == name) {
      *out = type;
      return true;
    }
  }
  return false;
}

bool HasNull(SchemaType type) {
  return type == SchemaType::kString || type == SchemaType::kBytes ||
         type == SchemaType::kRecords || type == SchemaType::kArray;
}

bool IsComposite(const FieldSchema& f) {
  return f.type == SchemaType::kStruct ||
         (f.type == SchemaType::kArray && f.element == SchemaType::kStruct);
}

struct FieldLine {
  int depth;
  FieldSchema field;
};

Result<FieldSchema> ParseFieldLine(std::string_view text, int line) {
  std::vector<std::string_view> words = Words(text);
  if (words.size() < 2) return LineError(line, "a field needs a type and a name");
  FieldSchema f;
  f.line = line;
  f.versions = VersionRange{0, kMaxVersion};
  std::string_view type = words[0];
  if (type == "[]") {
    f.type = SchemaType::kArray;
    f.element = SchemaType::kStruct;
  } else if (type == "{}") {
    f.type = SchemaType::kStruct;
  } else if (type.size() > 2 && type.front() == '[' && type.back() == ']') {
    f.type = SchemaType::kArray;
    if (!ParsePrimitive(type.substr(1, type.size() - 2), &f.element) ||
        f.element == SchemaType::kRecords) {
      return LineError(line, "unknown array element type '" + std::string(type) + "'");
    }
  } else if (!ParsePrimitive(type, &f.type)) {
    return LineError(line, "unknown type '" + std::string(type) + "'");
  }
  f.name = std::string(words[1]);
  for (size_t i = 2; i < words.size(); ++i) {
    std::string_view w = words[i];
    size_t eq = w.find('=');
    if (eq == std::string_view::npos) {
      return LineError(line, "expected key=value, got '" + std::string(w) + "'");
    }
    std::string_view key = w.substr(0, eq);
    std::string_view value = w.substr(eq + 1);
    if (key == "v") {
      if (!ParseRange(value, &f.versions)) {
        return LineError(line, "bad version range '" + std::string(value) + "'");
      }
    } else if (key == "null") {
      if (!ParseRange(value, &f.nullable)) {
        return LineError(line, "bad null range '" + std::string(value) + "'");
      }
    } else if (key == "tag") {
      if (!ParseInt(value, &f.tag)) {
        return LineError(line, "bad tag '" + std::string(value) + "'");
      }
    } else if (key == "refuse-null") {
      if (value.empty()) return LineError(line, "refuse-null needs a client name");
      f.refuse_null = std::string(value);
    } else {
      return LineError(line, "unknown attribute '" + std::string(key) + "'");
    }
  }
  if (!f.nullable.empty() && !HasNull(f.type)) {
    return LineError(line, std::string(SchemaTypeName(f.type)) + " has no null");
  }
  if (!f.refuse_null.empty() && f.nullable.empty()) {
    return LineError(line, "refuse-null on a field that is never nullable");
  }
  return f;
}

// Builds the fields at `depth` from lines[*i...], recursing into composites.
Result<std::vector<FieldSchema>> BuildFields(std::vector<FieldLine>& lines, size_t* i, int depth) {
  std::vector<FieldSchema> out;
  while (*i < lines.size() && lines[*i].depth == depth) {
    FieldSchema f = std::move(lines[*i].field);
    ++*i;
    if (IsComposite(f)) {
      if (*i >= lines.size() || lines[*i].depth != depth + 1) {
        return LineError(f.line, "'" + f.name + "' needs its fields on the next lines, " +
                                     std::to_string(2 * (depth + 1)) + " spaces in");
      }
      MINK_ASSIGN_OR_RETURN(f.fields, BuildFields(lines, i, depth + 1));
    } else if (*i < lines.size() && lines[*i].depth > depth) {
      return LineError(lines[*i].field.line, "indented under '" + f.name +
                                                 "', which is not a struct or array of structs");
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Clips every field's versions to its parent's and checks names, tags and nulls.
Status ValidateFields(std::vector<FieldSchema>& fields, VersionRange parent, int first_flexible) {
  for (size_t a = 0; a < fields.size(); ++a) {
    FieldSchema& f = fields[a];
    VersionRange clipped = Intersect(f.versions, parent);
    if (clipped.empty()) {
      return LineError(f.line, "'" + f.name + "' (v=" + RangeText(f.versions) +
                                   ") is never present in versions " + RangeText(parent));
    }
    f.versions = clipped;
    if (f.tag >= 0 && f.versions.min < first_flexible) {
      return LineError(f.line, "tagged field '" + f.name + "' in versions before " +
                                   std::to_string(first_flexible) + ", which are not flexible");
    }
    for (size_t b = 0; b < a; ++b) {
      if (fields[b].name == f.name) {
        return LineError(f.line, "duplicate field name '" + f.name + "'");
      }
      if (f.tag >= 0 && fields[b].tag == f.tag) {
        return LineError(f.line, "duplicate tag " + std::to_string(f.tag));
      }
    }
    MINK_RETURN_IF_ERROR(ValidateFields(f.fields, f.versions, first_flexible));
  }
  return Status::Ok();
}

Result<MessageSchema> ParseMessageLine(std::string_view text, int line) {
  std::vector<std::string_view> words = Words(text);
  if (words.size() != 5 || words[0] != "message") {
    return LineError(line, "expected 'message <Name> key=<k> versions=<a>-<b> flexible=<v>'");
  }
  MessageSchema m;
  m.name = std::string(words[1]);
  bool have_key = false, have_versions = false, have_flexible = false;
  for (size_t i = 2; i < words.size(); ++i) {
    std::string_view w = words[i];
    size_t eq = w.find('=');
    std::string_view key = eq == std::string_view::npos ? w : w.substr(0, eq);
    std::string_view value = eq == std::string_view::npos ? "" : w.substr(eq + 1);
    if (key == "key" && ParseInt(value, &m.api_key)) {
      have_key = true;
    } else if (key == "versions" && ParseRange(value, &m.versions) && !m.versions.empty() &&
               m.versions.max != kMaxVersion) {
      have_versions = true;
    } else if (key == "flexible" && (value == "none" || ParseInt(value, &m.first_flexible))) {
      if (value == "none") m.first_flexible = kMaxVersion;
      have_flexible = true;
    } else {
      return LineError(line, "bad message attribute '" + std::string(w) + "'");
    }
  }
  if (!have_key || !have_versions || !have_flexible) {
    return LineError(line, "a message needs key=, versions=<a>-<b> and flexible=");
  }
  return m;
}

}  // namespace

Result<SchemaSet> SchemaSet::Parse(std::string_view text) {
  SchemaSet set;
  std::vector<FieldLine> lines;  // of the message being read
  MessageSchema* current = nullptr;
  auto finish = [&]() -> Status {
    if (current == nullptr) return Status::Ok();
    size_t i = 0;
    if (lines.empty())
      return InvalidArgumentError("response schema " + current->name + ": no fields");
    if (lines[0].depth != 1)
      return LineError(lines[0].field.line, "first field must be 2 spaces in");
    MINK_ASSIGN_OR_RETURN(current->fields, BuildFields(lines, &i, 1));
    if (i != lines.size()) {
      return LineError(lines[i].field.line, "indentation does not match any enclosing struct");
    }
    lines.clear();
    return ValidateFields(current->fields, current->versions, current->first_flexible);
  };

  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t newline = text.find('\n', start);
    if (newline == std::string_view::npos) newline = text.size();
    std::string_view raw = text.substr(start, newline - start);
    start = newline + 1;
    ++line_number;
    size_t hash = raw.find('#');
    if (hash != std::string_view::npos) raw = raw.substr(0, hash);
    if (Trim(raw).empty()) continue;
    size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    if (raw[indent] == '\t') return LineError(line_number, "tabs are not allowed");
    std::string_view content = Trim(raw);
    if (indent == 0) {
      MINK_RETURN_IF_ERROR(finish());
      MINK_ASSIGN_OR_RETURN(MessageSchema m, ParseMessageLine(content, line_number));
      for (const MessageSchema& other : set.messages_) {
        if (other.api_key == m.api_key || other.name == m.name) {
          return LineError(line_number, "message " + m.name + " (key " + std::to_string(m.api_key) +
                                            ") is defined twice");
        }
      }
      set.messages_.push_back(std::move(m));
      current = &set.messages_.back();
      continue;
    }
    if (current == nullptr) return LineError(line_number, "a field before any message");
    if (indent % 2 != 0) return LineError(line_number, "indent by two spaces per level");
    MINK_ASSIGN_OR_RETURN(FieldSchema f, ParseFieldLine(content, line_number));
    lines.push_back(FieldLine{static_cast<int>(indent / 2), std::move(f)});
  }
  MINK_RETURN_IF_ERROR(finish());
  return set;
}

const Result<SchemaSet>& ResponseSchemas() {
  static const Result<SchemaSet> schemas = []() -> Result<SchemaSet> {
    const std::string path =
        std::string(MINK_SOURCE_DIR) + "/src/kafka/protocol/tests/response_schemas.txt";
    std::ifstream in(path, std::ios::binary);
    if (!in.is_open()) return NotFoundError("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    return SchemaSet::Parse(text.str());
  }();
  return schemas;
}


}  // namespace mink::kafka::testing
