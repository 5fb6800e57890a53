#include "stream/output_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "table/arrow_rows.h"

namespace mink::stream {
namespace {

using table::LogicalType;
using table::TypeKind;

LogicalType Type(TypeKind kind, int precision = 0) {
  LogicalType t;
  t.kind = kind;
  t.precision = precision;
  return t;
}

LogicalType DecimalType(int precision, int scale) {
  LogicalType t = Type(TypeKind::kDecimal, precision);
  t.scale = scale;
  return t;
}

int PrecisionOf(arrow::TimeUnit unit) {
  switch (unit) {
    case arrow::TimeUnit::kSecond: return 0;
    case arrow::TimeUnit::kMilli: return 3;
    case arrow::TimeUnit::kMicro: return 6;
    case arrow::TimeUnit::kNano: return 9;
  }
  return 6;
}

// The type of aggregate `i`'s answer, given its argument's type.
LogicalType AggregateType(AggregateKind kind, const LogicalType& argument) {
  switch (kind) {
    case AggregateKind::kCountRows:
    case AggregateKind::kCount:
    case AggregateKind::kCountDistinct: return Type(TypeKind::kBigInt);
    case AggregateKind::kSum:
      if (argument.IsInteger()) return Type(TypeKind::kBigInt);
      if (argument.kind == TypeKind::kDecimal) return DecimalType(38, argument.scale);  // as DuckDB's
      return Type(TypeKind::kDouble);
    case AggregateKind::kAvg: return Type(TypeKind::kDouble);
    case AggregateKind::kMin:
    case AggregateKind::kMax: return argument;
  }
  return argument;
}

Scalar Scaled(const Scalar& s, int64_t divisor) {
  return divisor == 1 || !s.is_int() ? s : Scalar::Int(s.int_value() / divisor);
}

}  // namespace

std::string OutputTableName(const std::string& object) { return std::string(kOutputDatabase) + "." + object; }

Result<LogicalType> LogicalTypeOfArrow(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::TypeId::kBool: return Type(TypeKind::kBoolean);
    case arrow::TypeId::kInt8: return Type(TypeKind::kTinyInt);
    case arrow::TypeId::kInt16: return Type(TypeKind::kSmallInt);
    case arrow::TypeId::kInt32: return Type(TypeKind::kInt);
    case arrow::TypeId::kInt64:
    case arrow::TypeId::kUInt8:
    case arrow::TypeId::kUInt16:
    case arrow::TypeId::kUInt32: return Type(TypeKind::kBigInt);
    case arrow::TypeId::kFloat32: return Type(TypeKind::kFloat);
    case arrow::TypeId::kFloat64: return Type(TypeKind::kDouble);
    case arrow::TypeId::kDecimal128: return DecimalType(type.precision(), type.scale());
    case arrow::TypeId::kUtf8: return Type(TypeKind::kString);
    case arrow::TypeId::kBinary: return Type(TypeKind::kBytes);
    case arrow::TypeId::kDate32: return Type(TypeKind::kDate);
    case arrow::TypeId::kTime64: return Type(TypeKind::kTime, PrecisionOf(type.unit()));
    case arrow::TypeId::kTimestamp:
      return Type(type.timezone().empty() ? TypeKind::kTimestamp : TypeKind::kTimestampLtz, PrecisionOf(type.unit()));
    default: break;
  }
  return InvalidArgumentError("values of type " + type.ToString() + " cannot be stored in a continuous query's table");
}

Result<OutputLayout> LayoutOf(sql::Session& session, const QueryShape& shape, bool is_view) {
  MINK_ASSIGN_OR_RETURN(auto answer, session.Execute(shape.batch_sql + " LIMIT 0"));
  const arrow::SchemaPtr& columns = answer->schema();
  auto column_type = [&](const std::string& name) -> Result<LogicalType> {
    for (int i = 0; i < columns->num_fields(); ++i) {
      if (columns->field(i).name() == name) {
        auto t = LogicalTypeOfArrow(*columns->field(i).type());
        if (!t.ok()) return InvalidArgumentError(name + ": " + t.status().message());
        return t;
      }
    }
    return InternalError("the per-batch query has no column " + name);
  };
  OutputLayout out;
  // Window bounds: whole seconds or milliseconds when every size and offset is (not sessions,
  // whose bounds are rows' times).
  int bound_precision = 6;
  if (shape.window && shape.window->kind != WindowKind::kSession) {
    const WindowSpec& w = *shape.window;
    auto all_multiples = [&](int64_t unit) {
      return w.size % unit == 0 && w.slide % unit == 0 && w.offset % unit == 0;
    };
    bound_precision = all_multiples(1'000'000) ? 0 : all_multiples(1'000) ? 3 : 6;
  }
  const int64_t bound_divisor = bound_precision == 0 ? 1'000'000 : bound_precision == 3 ? 1'000 : 1;
  bool window_start_selected = false;
  std::vector<bool> key_selected(shape.keys.size(), false);
  for (const auto& o : shape.outputs) {
    const bool plain = !o.name.empty() && std::all_of(o.name.begin(), o.name.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_';
    });
    if (!plain || o.name.rfind("__", 0) == 0 || table::IsReservedColumnName(o.name)) {
      return InvalidArgumentError("column " + o.name + " needs a name of letters, digits and _ (AS name)");
    }
    out.names.push_back(o.name);
    switch (o.kind) {
      case ShapeOutput::Kind::kKey: {
        MINK_ASSIGN_OR_RETURN(auto t, column_type("k" + std::to_string(o.index)));
        out.types.push_back(t);
        key_selected[static_cast<size_t>(o.index)] = true;
        if (shape.aggregated()) out.primary_key.push_back(o.name);
        break;
      }
      case ShapeOutput::Kind::kWindowStart:
        window_start_selected = true;
        out.types.push_back(Type(TypeKind::kTimestamp, bound_precision));
        break;
      case ShapeOutput::Kind::kWindowEnd: out.types.push_back(Type(TypeKind::kTimestamp, bound_precision)); break;
      case ShapeOutput::Kind::kAggregate: {
        const auto kind = shape.aggregates[static_cast<size_t>(o.index)];
        LogicalType argument = Type(TypeKind::kBigInt);
        if (!shape.arguments[static_cast<size_t>(o.index)].empty()) {
          MINK_ASSIGN_OR_RETURN(argument, column_type("a" + std::to_string(o.index)));
        }
        out.types.push_back(AggregateType(kind, argument));
        break;
      }
      case ShapeOutput::Kind::kProjected: {
        const auto& f = columns->field(static_cast<int>(out.types.size()));
        auto t = LogicalTypeOfArrow(*f.type());
        if (!t.ok()) return InvalidArgumentError(o.name + ": " + t.status().message());
        out.types.push_back(*t);
        break;
      }
    }
  }
  for (const auto& o : shape.outputs) {
    const bool bound = o.kind == ShapeOutput::Kind::kWindowStart || o.kind == ShapeOutput::Kind::kWindowEnd;
    out.divisors.push_back(bound ? bound_divisor : 1);
  }
  const bool keyed = shape.aggregated() && (!shape.window || is_view);
  if (!keyed) {
    out.primary_key.clear();
    return out;
  }
  for (size_t k = 0; k < key_selected.size(); ++k) {
    if (!key_selected[k]) {
      return InvalidArgumentError("select GROUP BY key " + shape.keys[k] +
                                  ": it is part of the primary key of the output table");
    }
  }
  if (shape.window) {
    if (!window_start_selected) {
      return InvalidArgumentError("select the window (its start is part of the primary key of the view's table)");
    }
    for (const auto& o : shape.outputs) {
      if (o.kind == ShapeOutput::Kind::kWindowStart) out.primary_key.push_back(o.name);
    }
  }
  if (out.primary_key.empty()) {
    out.hidden_key = true;
    out.primary_key.push_back(kHiddenKey);
  }
  return out;
}

Result<OutputLayout> LayoutOfTable(const table::TableStore& tables, const std::string& table) {
  MINK_ASSIGN_OR_RETURN(auto resolved, tables.Resolve(table));
  OutputLayout out;
  const auto& columns = resolved->d.schema.columns;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].name == kHiddenKey) {
      out.hidden_key = true;
      continue;
    }
    out.names.push_back(columns[i].name);
    out.types.push_back(resolved->types[i]);
    out.divisors.push_back(1);
  }
  for (int k : resolved->pk) out.primary_key.push_back(columns[static_cast<size_t>(k)].name);
  return out;
}

Result<OutputLayout> LayoutOfRows(const arrow::Schema& schema) {
  OutputLayout out;
  for (const auto& f : schema.fields()) {
    auto t = LogicalTypeOfArrow(*f.type());
    if (!t.ok()) return InvalidArgumentError(f.name() + ": " + t.status().message());
    out.names.push_back(f.name());
    out.types.push_back(*t);
    out.divisors.push_back(1);
  }
  return out;
}

table::TableSpec OutputLayout::Spec() const {
  table::TableSpec spec;
  auto in_key = [&](const std::string& name) {
    for (const auto& k : primary_key) {
      if (k == name) return true;
    }
    return false;
  };
  if (hidden_key) spec.columns.push_back(std::string(kHiddenKey) + " INT NOT NULL");
  for (size_t i = 0; i < names.size(); ++i) {
    spec.columns.push_back(names[i] + " " + types[i].ToString() + (in_key(names[i]) ? " NOT NULL" : ""));
  }
  spec.primary_key = primary_key;
  spec.bucket_count = 1;
  return spec;
}

table::Value ValueOf(const Scalar& scalar, const LogicalType& type) {
  if (scalar.is_null()) return table::Value();
  switch (type.kind) {
    case TypeKind::kBoolean: return table::Value::Bool(scalar.is_int() ? scalar.int_value() != 0 : scalar.AsDouble() != 0);
    case TypeKind::kFloat:
    case TypeKind::kDouble: return table::Value::Double(scalar.is_string() ? 0.0 : scalar.AsDouble());
    case TypeKind::kString:
    case TypeKind::kBytes: return table::Value::Bytes(scalar.is_string() ? scalar.string_value() : scalar.ToString());
    case TypeKind::kDecimal: {
      __int128 unscaled = 0;
      if (scalar.UnscaledAt(type.scale, &unscaled)) return table::Value::Decimal(unscaled);
      if (!scalar.is_double()) return table::Value();
      return table::Value::Decimal(static_cast<__int128>(std::llround(scalar.double_value() * std::pow(10.0, type.scale))));
    }
    default: {
      __int128 whole = 0;
      if (scalar.UnscaledAt(0, &whole)) return table::Value::Int(static_cast<int64_t>(whole));
      if (scalar.is_double()) return table::Value::Int(static_cast<int64_t>(scalar.double_value()));
      return table::Value();
    }
  }
}

Result<arrow::RecordBatchPtr> OutputLayout::ToBatch(const std::vector<Row>& rows) const {
  std::vector<LogicalType> all_types;
  std::vector<arrow::Field> fields;
  if (hidden_key) {
    all_types.push_back(Type(TypeKind::kInt));
    fields.emplace_back(kHiddenKey, table::ToArrowType(all_types.back()), false);
  }
  for (size_t i = 0; i < names.size(); ++i) {
    all_types.push_back(types[i]);
    fields.emplace_back(names[i], table::ToArrowType(types[i]), true);
  }
  std::vector<table::Row> values;
  values.reserve(rows.size());
  for (const auto& r : rows) {
    table::Row row;
    if (hidden_key) row.push_back(table::Value::Int(0));
    for (size_t i = 0; i < names.size(); ++i) row.push_back(ValueOf(Scaled(r[i], divisors[i]), types[i]));
    values.push_back(std::move(row));
  }
  std::vector<const table::Row*> pointers;
  for (const auto& r : values) pointers.push_back(&r);
  return table::RowsToBatch(pointers, std::make_shared<arrow::Schema>(std::move(fields)), all_types);
}

Result<arrow::RecordBatchPtr> OutputLayout::KeysBatch(const std::vector<Row>& rows) const {
  std::vector<LogicalType> key_types;
  std::vector<arrow::Field> fields;
  std::vector<int> positions;  // in a row of the query, -1 for the hidden key
  for (const auto& k : primary_key) {
    if (hidden_key) {
      key_types.push_back(Type(TypeKind::kInt));
      positions.push_back(-1);
    } else {
      for (size_t i = 0; i < names.size(); ++i) {
        if (names[i] == k) {
          key_types.push_back(types[i]);
          positions.push_back(static_cast<int>(i));
        }
      }
    }
    fields.emplace_back(k, table::ToArrowType(key_types.back()), false);
  }
  std::vector<table::Row> values;
  for (const auto& r : rows) {
    table::Row row;
    for (size_t c = 0; c < positions.size(); ++c) {
      row.push_back(positions[c] < 0 ? table::Value::Int(0)
                                     : ValueOf(Scaled(r[static_cast<size_t>(positions[c])],
                                                      divisors[static_cast<size_t>(positions[c])]),
                                               key_types[c]));
    }
    values.push_back(std::move(row));
  }
  std::vector<const table::Row*> pointers;
  for (const auto& r : values) pointers.push_back(&r);
  return table::RowsToBatch(pointers, std::make_shared<arrow::Schema>(std::move(fields)), key_types);
}

}  // namespace mink::stream
