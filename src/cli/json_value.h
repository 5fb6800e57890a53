#pragma once
// JsonValue: a small JSON document tree for the `mink` client. Unlike nlohmann::json it keeps
// the exact text of every number ("10.50", "1e400", "123456789012345678901234567890"), so that
// DECIMAL values and wide integers are converted without passing through a double, and it keeps
// object members in input order. Parsing uses nlohmann's SAX parser (no exceptions escape).
// (The writing side, JSON string escaping, is arrow_json/json_string.h.)

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace mink::cli {

class JsonValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };

  JsonValue() = default;
  static JsonValue Null() { return JsonValue(); }
  static JsonValue Bool(bool v);
  static JsonValue Number(std::string text);  // the number's JSON text
  static JsonValue String(std::string v);
  static JsonValue Array(std::vector<JsonValue> items = {});
  static JsonValue Object();

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::kNull; }
  bool is_string() const { return kind_ == Kind::kString; }
  bool is_number() const { return kind_ == Kind::kNumber; }
  bool is_array() const { return kind_ == Kind::kArray; }
  bool is_object() const { return kind_ == Kind::kObject; }

  bool bool_value() const { return bool_; }
  // kNumber: the number as written; kString: the decoded string.
  const std::string& text() const { return text_; }
  // kArray: the elements; kObject: the member values (keys() holds their names).
  const std::vector<JsonValue>& items() const { return items_; }
  const std::vector<std::string>& keys() const { return keys_; }

  void Append(JsonValue item) { items_.push_back(std::move(item)); }
  void Add(std::string key, JsonValue value) {
    keys_.push_back(std::move(key));
    items_.push_back(std::move(value));
  }
  // kObject: the member with this name, or null.
  const JsonValue* Find(std::string_view key) const;

  // Compact JSON text (numbers as written). Used to quote input values in error messages.
  std::string ToString() const;
  // ToString(), cut to about `max_chars` characters with "..." when longer.
  std::string ToShortString(size_t max_chars = 60) const;

 private:
  explicit JsonValue(Kind kind) : kind_(kind) {}
  void AppendTo(std::string* out) const;

  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::string text_;
  std::vector<JsonValue> items_;
  std::vector<std::string> keys_;
};

// Nesting deeper than this is refused (keeps recursion over the tree bounded).
inline constexpr int kMaxJsonDepth = 64;

// Parses one JSON document. Errors are InvalidArgument: "malformed JSON at column 12: ...",
// "duplicate key 'id'", "nesting deeper than 64".
Result<JsonValue> ParseJson(std::string_view text);

}  // namespace mink::cli
