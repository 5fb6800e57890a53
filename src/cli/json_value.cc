#include "cli/json_value.h"

#include <algorithm>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>

#include "arrow_json/json_string.h"

namespace mink::cli {

JsonValue JsonValue::Bool(bool v) {
  JsonValue j(Kind::kBool);
  j.bool_ = v;
  return j;
}

JsonValue JsonValue::Number(std::string text) {
  JsonValue j(Kind::kNumber);
  j.text_ = std::move(text);
  return j;
}

JsonValue JsonValue::String(std::string v) {
  JsonValue j(Kind::kString);
  j.text_ = std::move(v);
  return j;
}

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue j(Kind::kArray);
  j.items_ = std::move(items);
  return j;
}

JsonValue JsonValue::Object() { return JsonValue(Kind::kObject); }

const JsonValue* JsonValue::Find(std::string_view key) const {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

void JsonValue::AppendTo(std::string* out) const {
  switch (kind_) {
    case Kind::kNull:
      out->append("null");
      break;
    case Kind::kBool:
      out->append(bool_ ? "true" : "false");
      break;
    case Kind::kNumber:
      out->append(text_);
      break;
    case Kind::kString:
      arrow_json::AppendJsonString(text_, out);
      break;
    case Kind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out->push_back(',');
        items_[i].AppendTo(out);
      }
      out->push_back(']');
      break;
    case Kind::kObject:
      out->push_back('{');
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out->push_back(',');
        arrow_json::AppendJsonString(keys_[i], out);
        out->push_back(':');
        items_[i].AppendTo(out);
      }
      out->push_back('}');
      break;
  }
}

std::string JsonValue::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

std::string JsonValue::ToShortString(size_t max_chars) const {
  std::string s = ToString();
  if (s.size() <= max_chars) return s;
  size_t cut = max_chars;
  // Do not cut a UTF-8 sequence in half.
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

namespace {

// Builds a JsonValue tree from nlohmann's SAX events.
class TreeBuilder {
 public:
  using json = nlohmann::json;

  bool null() { return Put(JsonValue::Null()); }
  bool boolean(bool v) { return Put(JsonValue::Bool(v)); }
  bool number_integer(json::number_integer_t v) {
    return Put(JsonValue::Number(std::to_string(v)));
  }
  bool number_unsigned(json::number_unsigned_t v) {
    return Put(JsonValue::Number(std::to_string(v)));
  }
  bool number_float(json::number_float_t, const json::string_t& text) {
    return Put(JsonValue::Number(text));
  }
  bool string(json::string_t& v) { return Put(JsonValue::String(std::move(v))); }
  bool binary(json::binary_t&) { return Fail("binary values are not JSON"); }
  bool start_object(std::size_t) { return Open(JsonValue::Object()); }
  bool key(json::string_t& k) {
    const JsonValue& object = stack_.back();
    if (std::find(object.keys().begin(), object.keys().end(), k) != object.keys().end()) {
      return Fail("duplicate key " + arrow_json::JsonQuote(k));
    }
    pending_keys_.push_back(std::move(k));
    return true;
  }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(JsonValue::Array()); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 1, column 5: <detail>".
    std::string detail = e.what();
    if (size_t p = detail.find("] "); p != std::string::npos) detail.erase(0, p + 2);
    if (detail.rfind("parse error", 0) == 0) {
      if (size_t p = detail.find(": "); p != std::string::npos) detail.erase(0, p + 2);
    }
    return Fail("malformed JSON at column " + std::to_string(position) + ": " + detail);
  }

  bool has_error() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  JsonValue TakeRoot() { return std::move(root_); }

 private:
  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }
  bool Open(JsonValue container) {
    if (static_cast<int>(stack_.size()) >= kMaxJsonDepth) {
      return Fail("nesting deeper than " + std::to_string(kMaxJsonDepth));
    }
    stack_.push_back(std::move(container));
    return true;
  }
  bool Close() {
    JsonValue done = std::move(stack_.back());
    stack_.pop_back();
    return Put(std::move(done));
  }
  bool Put(JsonValue v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return true;
    }
    JsonValue& top = stack_.back();
    if (top.is_array()) {
      top.Append(std::move(v));
    } else {
      top.Add(std::move(pending_keys_.back()), std::move(v));
      pending_keys_.pop_back();
    }
    return true;
  }

  std::vector<JsonValue> stack_;
  std::vector<std::string> pending_keys_;
  JsonValue root_;
  std::string error_;
};

}  // namespace

Result<JsonValue> ParseJson(std::string_view text) {
  TreeBuilder builder;
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
  } catch (const std::exception& e) {
    return InvalidArgumentError(std::string("malformed JSON: ") + e.what());
  }
  if (!ok || builder.has_error()) {
    return InvalidArgumentError(builder.has_error() ? builder.error() : "malformed JSON");
  }
  return builder.TakeRoot();
}

}  // namespace mink::cli
