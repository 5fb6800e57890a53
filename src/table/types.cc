#include "table/types.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace mink::table {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// A small recursive-descent parser over the type grammar.
class TypeParser {
 public:
  explicit TypeParser(std::string_view text) : text_(text) {}

  Result<LogicalType> ParseAll() {
    MINK_ASSIGN_OR_RETURN(LogicalType t, Parse());
    SkipSpace();
    if (pos_ != text_.size()) return Error("unexpected '" + std::string(text_.substr(pos_)) + "'");
    return t;
  }

  // Parses "NOT NULL" if it comes next.
  bool ParseNotNull() {
    size_t save = pos_;
    if (Word() == "NOT" && Word() == "NULL") return true;
    pos_ = save;
    return false;
  }

  Result<LogicalType> Parse() {
    std::string word = Word();
    if (word.empty()) return Error("expected a type");
    LogicalType t;
    if (word == "BOOLEAN" || word == "BOOL") t.kind = TypeKind::kBoolean;
    else if (word == "TINYINT") t.kind = TypeKind::kTinyInt;
    else if (word == "SMALLINT") t.kind = TypeKind::kSmallInt;
    else if (word == "INT" || word == "INTEGER") t.kind = TypeKind::kInt;
    else if (word == "BIGINT") t.kind = TypeKind::kBigInt;
    else if (word == "FLOAT" || word == "REAL") t.kind = TypeKind::kFloat;
    else if (word == "DOUBLE") {
      t.kind = TypeKind::kDouble;
      size_t save = pos_;
      if (Word() != "PRECISION") pos_ = save;
    } else if (word == "DECIMAL" || word == "NUMERIC" || word == "DEC") {
      t.kind = TypeKind::kDecimal;
      t.precision = 10;
      t.scale = 0;
      if (Peek('(')) {
        MINK_ASSIGN_OR_RETURN(t.precision, Number());
        if (Peek(',')) {
          MINK_ASSIGN_OR_RETURN(t.scale, Number());
        }
        MINK_RETURN_IF_ERROR(Expect(')'));
      }
      if (t.precision < 1 || t.precision > 38) return Error("DECIMAL precision must be 1..38");
      if (t.scale < 0 || t.scale > t.precision) return Error("DECIMAL scale must be 0..precision");
    } else if (word == "STRING" || word == "VARCHAR" || word == "CHAR" || word == "TEXT") {
      t.kind = TypeKind::kString;
      if (Peek('(')) {  // VARCHAR(n): the length is not enforced
        MINK_RETURN_IF_ERROR(Number().status());
        MINK_RETURN_IF_ERROR(Expect(')'));
      }
    } else if (word == "BYTES" || word == "BINARY" || word == "VARBINARY") {
      t.kind = TypeKind::kBytes;
      if (Peek('(')) {
        MINK_RETURN_IF_ERROR(Number().status());
        MINK_RETURN_IF_ERROR(Expect(')'));
      }
    } else if (word == "DATE") {
      t.kind = TypeKind::kDate;
    } else if (word == "TIME") {
      t.kind = TypeKind::kTime;
      MINK_ASSIGN_OR_RETURN(t.precision, OptionalPrecision(0));
    } else if (word == "TIMESTAMP" || word == "TIMESTAMP_LTZ") {
      t.kind = word == "TIMESTAMP" ? TypeKind::kTimestamp : TypeKind::kTimestampLtz;
      MINK_ASSIGN_OR_RETURN(t.precision, OptionalPrecision(6));
      if (t.kind == TypeKind::kTimestamp) {
        // TIMESTAMP(p) WITH LOCAL TIME ZONE is TIMESTAMP_LTZ(p).
        size_t save = pos_;
        if (Word() == "WITH" && Word() == "LOCAL" && Word() == "TIME" && Word() == "ZONE") {
          t.kind = TypeKind::kTimestampLtz;
        } else {
          pos_ = save;
        }
      }
    } else if (word == "ARRAY") {
      t.kind = TypeKind::kArray;
      MINK_RETURN_IF_ERROR(Expect('<'));
      MINK_ASSIGN_OR_RETURN(LogicalType element, Parse());
      element.nullable = !ParseNotNull();
      t.children.push_back(std::move(element));
      MINK_RETURN_IF_ERROR(Expect('>'));
    } else if (word == "MAP") {
      t.kind = TypeKind::kMap;
      MINK_RETURN_IF_ERROR(Expect('<'));
      MINK_ASSIGN_OR_RETURN(LogicalType key, Parse());
      ParseNotNull();
      key.nullable = false;  // map keys are never null
      MINK_RETURN_IF_ERROR(Expect(','));
      MINK_ASSIGN_OR_RETURN(LogicalType value, Parse());
      value.nullable = !ParseNotNull();
      MINK_RETURN_IF_ERROR(Expect('>'));
      if (key.IsNested()) return Error("MAP keys must not be ARRAY, MAP or ROW");
      t.children = {std::move(key), std::move(value)};
    } else if (word == "ROW") {
      t.kind = TypeKind::kRow;
      MINK_RETURN_IF_ERROR(Expect('<'));
      while (true) {
        std::string name = Name();
        if (name.empty()) return Error("expected a ROW field name");
        MINK_ASSIGN_OR_RETURN(LogicalType field, Parse());
        field.nullable = !ParseNotNull();
        if (std::find(t.field_names.begin(), t.field_names.end(), name) != t.field_names.end()) {
          return Error("ROW field '" + name + "' appears twice");
        }
        t.field_names.push_back(name);
        t.children.push_back(std::move(field));
        if (Peek(',')) continue;
        MINK_RETURN_IF_ERROR(Expect('>'));
        break;
      }
    } else {
      return Error("unknown type '" + word + "'");
    }
    return t;
  }

  std::string Name() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  size_t position() const { return pos_; }
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  Result<int> OptionalPrecision(int fallback) {
    if (!Peek('(')) return fallback;
    MINK_ASSIGN_OR_RETURN(int p, Number());
    MINK_RETURN_IF_ERROR(Expect(')'));
    if (p < 0 || p > 9) return Error("precision must be 0..9");
    return p;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string Word() { return Upper(Name()); }
  bool Peek(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    if (Peek(c)) return Status::Ok();
    return Error(std::string("expected '") + c + "'");
  }
  Result<int> Number() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    auto n = ParseInt64(text_.substr(start, pos_ - start));
    if (!n.ok() || *n > 1'000'000) return Error("expected a number");
    return static_cast<int>(*n);
  }
  Status Error(const std::string& what) const {
    return InvalidArgumentError("type '" + std::string(text_) + "': " + what);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<LogicalType> ParseType(std::string_view text) { return TypeParser(text).ParseAll(); }

Result<Column> ParseColumn(std::string_view text) {
  TypeParser parser(text);
  Column column;
  column.name = parser.Name();
  if (column.name.empty()) {
    return InvalidArgumentError("column '" + std::string(text) +
                                "': expected \"name TYPE [NOT NULL]\"");
  }
  MINK_ASSIGN_OR_RETURN(column.type, parser.Parse());
  column.not_null = parser.ParseNotNull();
  column.type.nullable = !column.not_null;
  if (!Trim(parser.rest()).empty()) {
    return InvalidArgumentError("column '" + std::string(text) + "': unexpected '" +
                                std::string(Trim(parser.rest())) + "'");
  }
  return column;
}

bool LogicalType::IsInteger() const {
  return kind == TypeKind::kTinyInt || kind == TypeKind::kSmallInt || kind == TypeKind::kInt ||
         kind == TypeKind::kBigInt;
}

int64_t LogicalType::UnitsPerSecond() const {
  if (precision == 0) return 1;
  if (precision <= 3) return 1000;
  if (precision <= 6) return 1'000'000;
  return 1'000'000'000;
}

bool LogicalType::operator==(const LogicalType& o) const {
  return kind == o.kind && precision == o.precision && scale == o.scale &&
         nullable == o.nullable && children == o.children && field_names == o.field_names;
}

std::string LogicalType::ToString() const {
  auto child = [](const LogicalType& t) { return t.ToString() + (t.nullable ? "" : " NOT NULL"); };
  switch (kind) {
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kTinyInt: return "TINYINT";
    case TypeKind::kSmallInt: return "SMALLINT";
    case TypeKind::kInt: return "INT";
    case TypeKind::kBigInt: return "BIGINT";
    case TypeKind::kFloat: return "FLOAT";
    case TypeKind::kDouble: return "DOUBLE";
    case TypeKind::kDecimal:
      return "DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeKind::kString: return "STRING";
    case TypeKind::kBytes: return "BYTES";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTime: return "TIME(" + std::to_string(precision) + ")";
    case TypeKind::kTimestamp: return "TIMESTAMP(" + std::to_string(precision) + ")";
    case TypeKind::kTimestampLtz: return "TIMESTAMP_LTZ(" + std::to_string(precision) + ")";
    case TypeKind::kArray: return "ARRAY<" + child(children[0]) + ">";
    case TypeKind::kMap: return "MAP<" + children[0].ToString() + ", " + child(children[1]) + ">";
    case TypeKind::kRow: {
      std::string out = "ROW<";
      for (size_t i = 0; i < children.size(); ++i) {
        if (i) out += ", ";
        out += field_names[i] + " " + child(children[i]);
      }
      return out + ">";
    }
  }
  return "?";
}

int TableSchema::Find(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int TableSchema::FindId(int32_t id) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace mink::table
