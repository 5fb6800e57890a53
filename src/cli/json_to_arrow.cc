// JSON -> table::Value -> Arrow, for `mink write` (see json_to_arrow.h for the accepted forms).

#include "cli/json_to_arrow.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/strings.h"
#include "arrow_json/json_string.h"
#include "arrow_json/numbers.h"
#include "arrow_json/temporal.h"
#include "table/arrow_rows.h"

namespace mink::cli {
namespace {

using arrow_json::DateTime;
using arrow_json::DecimalError;
using arrow_json::Int128;
using arrow_json::ParseDate;
using arrow_json::ParseDateTime;
using arrow_json::ParseDecimal;
using arrow_json::ParseDoubleText;
using arrow_json::ParseFloatText;
using arrow_json::ParseIntegral;
using arrow_json::ParseTimeOfDay;
using arrow_json::Pow10;
using arrow_json::ToUnits;
using table::LogicalType;
using table::TypeKind;
using table::Value;

// Fractional digits of the Arrow unit a TIME/TIMESTAMP precision is stored in.
int UnitDigits(int precision) { return table::DigitsOf(table::TimeUnitOf(precision)); }

class Converter {
 public:
  Converter(const JsonValue& json, const LogicalType& type, const std::string& path)
      : json_(json), type_(type), path_(path) {}

  Result<Value> Convert() {
    switch (type_.kind) {
      case TypeKind::kBoolean:
        if (json_.kind() != JsonValue::Kind::kBool) return Problem("is not true or false");
        return Value::Bool(json_.bool_value());
      case TypeKind::kTinyInt:
        return Integer(INT8_MIN, INT8_MAX);
      case TypeKind::kSmallInt:
        return Integer(INT16_MIN, INT16_MAX);
      case TypeKind::kInt:
        return Integer(INT32_MIN, INT32_MAX);
      case TypeKind::kBigInt:
        return Integer(INT64_MIN, INT64_MAX);
      case TypeKind::kFloat:
      case TypeKind::kDouble:
        return Floating();
      case TypeKind::kDecimal:
        return Decimal();
      case TypeKind::kString:
        if (!json_.is_string()) return Problem("is not a string");
        return Value::Bytes(json_.text());
      case TypeKind::kBytes: {
        if (!json_.is_string()) return Problem("is not a hex string");
        auto bytes = HexDecode(json_.text());
        if (!bytes.ok()) return Problem("is not a hex string (" + bytes.status().message() + ")");
        return Value::Bytes(std::move(*bytes));
      }
      case TypeKind::kDate:
        return Date();
      case TypeKind::kTime:
        return Time();
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz:
        return Timestamp();
      case TypeKind::kArray:
        return Array();
      case TypeKind::kMap:
        return Map();
      case TypeKind::kRow:
        return Row();
    }
    return Problem("has an unsupported type");
  }

 private:
  Status Problem(const std::string& what) const {
    return InvalidArgumentError("column '" + path_ + "': " + type_.ToString() + " value " +
                                json_.ToShortString() + " " + what);
  }
  Status NotNull(const std::string& path, const char* how) const {
    return InvalidArgumentError("column '" + path + "' is NOT NULL but " + how);
  }
  bool IsNumberOrString() const { return json_.is_number() || json_.is_string(); }

  Result<Value> Integer(int64_t min, int64_t max) const {
    if (!IsNumberOrString()) return Problem("is not an integer");
    auto v = ParseIntegral(json_.text(), min, max);
    if (!v.ok()) return Problem(v.status().message());
    return Value::Int(static_cast<int64_t>(*v));
  }

  Result<Value> Floating() const {
    if (!IsNumberOrString()) return Problem("is not a number");
    if (type_.kind == TypeKind::kFloat) {
      auto v = ParseFloatText(json_.text());
      if (!v.ok()) return Problem(v.status().message());
      return Value::Double(*v);
    }
    auto v = ParseDoubleText(json_.text());
    if (!v.ok()) return Problem(v.status().message());
    return Value::Double(*v);
  }

  Result<Value> Decimal() const {
    if (!IsNumberOrString()) return Problem("is not a number");
    Int128 unscaled = 0;
    switch (ParseDecimal(json_.text(), type_.precision, type_.scale, &unscaled)) {
      case DecimalError::kOk:
        return Value::Decimal(unscaled);
      case DecimalError::kNotANumber:
        return Problem("is not a number");
      case DecimalError::kTooManyPlaces:
        return Problem("has more decimal places than the scale " + std::to_string(type_.scale) +
                       " (no rounding)");
      case DecimalError::kDoesNotFit:
        return Problem("does not fit " + type_.ToString());
    }
    return Problem("is not a number");
  }

  Result<Value> Date() const {
    if (json_.is_number()) {
      auto days = ParseIntegral(json_.text(), INT32_MIN, INT32_MAX);
      if (!days.ok()) return Problem("(days) " + days.status().message());
      return Value::Int(static_cast<int64_t>(*days));
    }
    if (!json_.is_string()) return Problem("is not a date (YYYY-MM-DD)");
    auto days = ParseDate(json_.text());
    if (!days.ok()) return Problem("is not a date (YYYY-MM-DD): " + days.status().message());
    return Value::Int(*days);
  }

  Status CheckFraction(int fraction_digits) const {
    if (fraction_digits > type_.precision) {
      return Problem("has more than " + std::to_string(type_.precision) +
                     " fractional digits (no rounding)");
    }
    return Status::Ok();
  }

  Result<Value> Time() const {
    if (!json_.is_string()) return Problem("is not a time (HH:MM:SS[.fff])");
    int fraction_digits = 0;
    auto nanos = ParseTimeOfDay(json_.text(), &fraction_digits);
    if (!nanos.ok()) return Problem("is not a time (HH:MM:SS[.fff]): " + nanos.status().message());
    MINK_RETURN_IF_ERROR(CheckFraction(fraction_digits));
    return Value::Int(*nanos / Pow10(9 - UnitDigits(type_.precision)));
  }

  Result<Value> Timestamp() const {
    DateTime dt;
    if (json_.is_number()) {
      auto ms = ParseIntegral(json_.text(), INT64_MIN, INT64_MAX);
      if (!ms.ok()) return Problem("(epoch milliseconds) " + ms.status().message());
      int64_t millis = static_cast<int64_t>(*ms);
      int64_t days = millis / 86'400'000;
      int64_t rest = millis % 86'400'000;
      if (rest < 0) {
        rest += 86'400'000;
        --days;
      }
      dt.days = days;
      dt.nanos_of_day = rest * 1'000'000;
      int64_t fraction = rest % 1000;
      dt.fraction_digits = fraction == 0 ? 0 : fraction % 10 != 0 ? 3 : fraction % 100 != 0 ? 2 : 1;
      dt.has_offset = true;
    } else if (json_.is_string()) {
      auto parsed = ParseDateTime(json_.text());
      if (!parsed.ok()) {
        return Problem("is not a timestamp (YYYY-MM-DD HH:MM:SS[.fff][Z|+HH:MM]): " +
                       parsed.status().message());
      }
      // With an offset, a TIMESTAMP (no zone) takes the UTC wall time of that instant, as
      // DuckDB's cast does: "2026-10-18T09:30:05+02:00" is 2026-10-18 07:30:05.
      dt = *parsed;
    } else {
      return Problem("is not a timestamp");
    }
    MINK_RETURN_IF_ERROR(CheckFraction(dt.fraction_digits));
    auto units = ToUnits(dt, UnitDigits(type_.precision));
    if (!units.ok()) return Problem("is " + units.status().message());
    return Value::Int(*units);
  }

  Result<Value> Element(const JsonValue& json, const LogicalType& type,
                        const std::string& path) const {
    if (json.is_null()) {
      if (!type.nullable) return NotNull(path, "null");
      return Value();
    }
    return Converter(json, type, path).Convert();
  }

  Result<Value> Array() const {
    if (!json_.is_array()) return Problem("is not an array");
    std::vector<Value> items;
    items.reserve(json_.items().size());
    for (size_t i = 0; i < json_.items().size(); ++i) {
      MINK_ASSIGN_OR_RETURN(Value v, Element(json_.items()[i], type_.children[0],
                                             path_ + "[" + std::to_string(i) + "]"));
      items.push_back(std::move(v));
    }
    return Value::List(std::move(items));
  }

  Result<Value> Map() const {
    const LogicalType& key_type = type_.children[0];
    const LogicalType& value_type = type_.children[1];
    std::vector<Value> items;  // key, value, key, value, ...
    auto add = [&](const JsonValue& key, const JsonValue& value) -> Status {
      std::string key_path = path_ + "[" + key.ToShortString(40) + "]";
      if (key.is_null()) return InvalidArgumentError("column '" + path_ + "': a map key is null");
      MINK_ASSIGN_OR_RETURN(Value k, Converter(key, key_type, path_ + " key").Convert());
      MINK_ASSIGN_OR_RETURN(Value v, Element(value, value_type, key_path));
      items.push_back(std::move(k));
      items.push_back(std::move(v));
      return Status::Ok();
    };
    if (json_.is_object()) {
      for (size_t i = 0; i < json_.items().size(); ++i) {
        MINK_RETURN_IF_ERROR(add(JsonValue::String(json_.keys()[i]), json_.items()[i]));
      }
    } else if (json_.is_array()) {
      for (size_t i = 0; i < json_.items().size(); ++i) {
        const JsonValue& pair = json_.items()[i];
        if (!pair.is_array() || pair.items().size() != 2) {
          return Problem("entry " + std::to_string(i) + " is not a [key, value] pair");
        }
        MINK_RETURN_IF_ERROR(add(pair.items()[0], pair.items()[1]));
      }
    } else {
      return Problem("is not an object or an array of [key, value] pairs");
    }
    return Value::List(std::move(items));
  }

  Result<Value> Row() const {
    if (!json_.is_object()) return Problem("is not an object");
    for (const auto& key : json_.keys()) {
      if (std::find(type_.field_names.begin(), type_.field_names.end(), key) ==
          type_.field_names.end()) {
        return Problem("has an unknown field " + arrow_json::JsonQuote(key));
      }
    }
    std::vector<Value> fields;
    for (size_t i = 0; i < type_.children.size(); ++i) {
      const std::string& name = type_.field_names[i];
      const JsonValue* f = json_.Find(name);
      std::string field_path = path_ + "." + name;
      if (f == nullptr) {
        if (!type_.children[i].nullable) return NotNull(field_path, "missing");
        fields.emplace_back();
        continue;
      }
      MINK_ASSIGN_OR_RETURN(Value v, Element(*f, type_.children[i], field_path));
      fields.push_back(std::move(v));
    }
    return Value::List(std::move(fields));
  }

  const JsonValue& json_;
  const LogicalType& type_;
  const std::string& path_;
};

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? "," : "") + items[i];
  return out;
}

}  // namespace

Result<Value> JsonToValue(const JsonValue& json, const LogicalType& type, const std::string& path) {
  if (json.is_null()) return Value();
  return Converter(json, type, path).Convert();
}

Result<JsonRowConverter> JsonRowConverter::Make(const client::TableDescription& table,
                                                const WriteShape& shape) {
  JsonRowConverter c;
  c.table_name_ = table.table;
  c.columns_ = table.columns;
  const size_t n = table.columns.size();
  std::vector<bool> written(n, shape.partial_columns.empty());
  if (shape.is_delete && !table.has_primary_key()) {
    return InvalidArgumentError("--delete needs a primary-key table; " + table.table +
                                " is a log table");
  }
  if (!shape.partial_columns.empty()) {
    if (!table.has_primary_key()) {
      return InvalidArgumentError("--columns (a partial update) needs a primary-key table; " +
                                  table.table + " is a log table");
    }
    if (shape.is_delete) return InvalidArgumentError("--columns and --delete exclude each other");
    for (const auto& name : shape.partial_columns) {
      int i = table.Find(name);
      if (i < 0)
        return InvalidArgumentError("--columns: unknown column '" + name + "' in " + table.table);
      written[static_cast<size_t>(i)] = true;
    }
    for (const auto& key : table.primary_key) {
      int i = table.Find(key);
      if (i >= 0) written[static_cast<size_t>(i)] = true;
    }
    c.columns_flag_ = Join(shape.partial_columns);
  }
  std::vector<arrow::Field> fields;
  c.written_index_.assign(n, -1);
  c.auto_increment_ = table.auto_increment;
  for (size_t i = 0; i < n; ++i) {
    if (!written[i]) continue;
    const client::ColumnSpec& col = table.columns[i];
    if (col.name == table.auto_increment) continue;  // the table fills it
    bool key = table.IsPrimaryKey(col.name);
    // A delete only needs its keys; everything else it carries is ignored by the node.
    bool required = key || (!shape.is_delete && col.not_null);
    c.written_index_[i] = static_cast<int>(c.targets_.size());
    c.targets_.push_back({static_cast<int>(i), required});
    fields.emplace_back(col.name, table::ToArrowType(col.type), !required);
    c.types_.push_back(col.type);
    if (!shape.partial_columns.empty()) c.descriptor_columns_.push_back(col.name);
  }
  c.schema_ = std::make_shared<arrow::Schema>(std::move(fields));
  return c;
}

Result<JsonRowConverter> JsonRowConverter::ForKeys(const client::TableDescription& table,
                                                   const std::vector<std::string>& key_columns) {
  JsonRowConverter c;
  c.table_name_ = table.table;
  c.columns_ = table.columns;
  c.keys_only_ = true;
  c.columns_flag_ = Join(key_columns);
  const size_t n = table.columns.size();
  std::vector<arrow::Field> fields;
  c.written_index_.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    const client::ColumnSpec& col = table.columns[i];
    if (std::find(key_columns.begin(), key_columns.end(), col.name) == key_columns.end()) continue;
    c.written_index_[i] = static_cast<int>(c.targets_.size());
    c.targets_.push_back({static_cast<int>(i), true});
    fields.emplace_back(col.name, table::ToArrowType(col.type), false);
    c.types_.push_back(col.type);
  }
  c.schema_ = std::make_shared<arrow::Schema>(std::move(fields));
  return c;
}

Result<table::Row> JsonRowConverter::ConvertLine(std::string_view line) const {
  MINK_ASSIGN_OR_RETURN(JsonValue json, ParseJson(line));
  return ConvertObject(json);
}

Result<table::Row> JsonRowConverter::ConvertObject(const JsonValue& object) const {
  if (!object.is_object()) {
    return InvalidArgumentError("expected a JSON object, not " + object.ToShortString());
  }
  for (const auto& key : object.keys()) {
    int i = -1;
    for (size_t k = 0; k < columns_.size(); ++k) {
      if (columns_[k].name == key) i = static_cast<int>(k);
    }
    if (i < 0) return InvalidArgumentError("unknown column '" + key + "' in " + table_name_);
    if (key == auto_increment_ && !keys_only_) {
      return InvalidArgumentError("column '" + key + "' is the auto-increment column of " +
                                  table_name_ + ": the table fills it, leave it out");
    }
    if (written_index_[static_cast<size_t>(i)] < 0 && keys_only_) {
      return InvalidArgumentError("column '" + key + "' is not part of the key (" +
                                  columns_flag_ + ")");
    }
    if (written_index_[static_cast<size_t>(i)] < 0) {
      return InvalidArgumentError("column '" + key + "' is not in --columns " + columns_flag_ +
                                  " (a partial update writes only those and the primary key)");
    }
  }
  table::Row row;
  row.reserve(targets_.size());
  for (const Target& t : targets_) {
    const client::ColumnSpec& col = columns_[static_cast<size_t>(t.table_index)];
    const JsonValue* v = object.Find(col.name);
    if (v == nullptr || v->is_null()) {
      if (t.required) {
        return InvalidArgumentError("column '" + col.name + "' is " +
                                    (keys_only_      ? "part of the key"
                                     : col.not_null ? "NOT NULL"
                                                    : "part of the primary key") +
                                    " but " + (v == nullptr ? "missing" : "null"));
      }
      row.emplace_back();
      continue;
    }
    MINK_ASSIGN_OR_RETURN(Value value, Converter(*v, col.type, col.name).Convert());
    row.push_back(std::move(value));
  }
  return row;
}

Result<BatchBuilder> BatchBuilder::Make(arrow::SchemaPtr schema,
                                        std::vector<table::LogicalType> types) {
  BatchBuilder b;
  for (const auto& f : schema->fields()) {
    MINK_ASSIGN_OR_RETURN(auto builder, arrow::MakeBuilder(f.type()));
    b.builders_.push_back(std::move(builder));
  }
  b.schema_ = std::move(schema);
  b.types_ = std::move(types);
  return b;
}

Status BatchBuilder::Append(const table::Row& row) {
  for (size_t c = 0; c < builders_.size(); ++c) {
    MINK_RETURN_IF_ERROR(table::AppendValue(builders_[c].get(), row[c], types_[c]));
  }
  ++rows_;
  return Status::Ok();
}

Result<arrow::RecordBatchPtr> BatchBuilder::Finish() {
  std::vector<arrow::ArrayDataPtr> columns;
  for (auto& b : builders_) {
    MINK_ASSIGN_OR_RETURN(auto column, b->Finish());
    columns.push_back(std::move(column));
  }
  int64_t rows = rows_;
  rows_ = 0;
  return arrow::RecordBatch::Make(schema_, rows, std::move(columns));
}

}  // namespace mink::cli
