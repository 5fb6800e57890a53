// Partition and bucket pruning from the filters DuckDB's optimizer pushes towards a mink scan.
// The filters are inspected, never removed: DuckDB goes on to push them into the scan as table
// filters, which the scan applies to every row, so pruning only has to be conservative.
//   - A filter that references partition columns only is evaluated on each partition's values
//     (read back from the partition name); a partition for which it is false or NULL is skipped.
//     FLOAT and DOUBLE names are rounded, so a name stands for an interval of values: there,
//     only comparisons, BETWEEN and IN against constants prune, when no value of the interval
//     can satisfy them.
//   - `k = c` and `k IN (c1, ...)` on every bucket-key column give the buckets to read, computed
//     with the table's bucketing function (table/bucketing.h).
//   - The same on every primary-key column of a primary-key table give the keys to look up
//     (LookupKeys): the scan then reads those rows from the owners' KV state instead of the
//     buckets.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <set>

#include "duckdb/execution/expression_executor.hpp"
#include "duckdb/planner/expression/bound_between_expression.hpp"
#include "duckdb/planner/expression/bound_cast_expression.hpp"
#include "duckdb/planner/expression/bound_columnref_expression.hpp"
#include "duckdb/planner/expression/bound_comparison_expression.hpp"
#include "duckdb/planner/expression/bound_conjunction_expression.hpp"
#include "duckdb/planner/expression/bound_constant_expression.hpp"
#include "duckdb/planner/expression/bound_operator_expression.hpp"
#include "duckdb/planner/expression/bound_reference_expression.hpp"
#include "duckdb/planner/expression_iterator.hpp"
#include "duckdb/planner/operator/logical_get.hpp"
#include "query/duckdb_internal.h"
#include "table/arrow_rows.h"
#include "table/bucketing.h"
#include "table/partition_name.h"

namespace mink::query::internal {
namespace {

using duckdb::Expression;
using duckdb::LogicalTypeId;

std::vector<int> Indexes(const client::TableDescription& d,
                         const std::vector<std::string>& names) {
  std::vector<int> out;
  for (const auto& n : names) out.push_back(d.Find(n));
  return out;
}

int Position(const std::vector<int>& indexes, int column) {
  for (size_t i = 0; i < indexes.size(); ++i) {
    if (indexes[i] == column) return static_cast<int>(i);
  }
  return -1;
}

// The table column a column reference of `get` points at, or -1.
int ColumnOf(const duckdb::LogicalGet& get, const Expression& e) {
  if (e.GetExpressionClass() != duckdb::ExpressionClass::BOUND_COLUMN_REF) return -1;
  const auto& ref = e.Cast<duckdb::BoundColumnRefExpression>();
  if (ref.depth != 0 || ref.binding.table_index != get.table_index) return -1;
  const auto& ids = get.GetColumnIds();
  if (ref.binding.column_index >= ids.size()) return -1;
  auto id = ids[ref.binding.column_index].GetPrimaryIndex();
  if (duckdb::IsVirtualColumn(id)) return -1;
  return static_cast<int>(id);
}

bool ParseInteger(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return false;
  *out = v;
  return true;
}

// `value` counted `from` units per second -> `to` units per second; false unless exact.
bool ConvertUnits(int64_t value, int64_t from, int64_t to, int64_t* out) {
  if (to >= from) {
    int64_t factor = to / from;
    if (__builtin_mul_overflow(value, factor, out)) return false;
    return true;
  }
  int64_t divisor = from / to;
  if (value % divisor != 0) return false;
  *out = value / divisor;
  return true;
}

// Partition name part -> the column's DuckDB value (the inverse of the node's partition names);
// false when the type's names cannot be read back exactly.
bool PartitionValue(const std::string& part, const table::LogicalType& type,
                    const duckdb::LogicalType& duck, duckdb::Value* out) {
  using table::TypeKind;
  try {
    switch (type.kind) {
      case TypeKind::kString:
        *out = duckdb::Value(part);
        return true;
      case TypeKind::kBoolean:
      case TypeKind::kTinyInt:
      case TypeKind::kSmallInt:
      case TypeKind::kInt:
      case TypeKind::kBigInt:
      case TypeKind::kDate:
        *out = duckdb::Value(part).DefaultCastAs(duck);
        return true;
      case TypeKind::kBytes: {
        std::string bytes;
        for (size_t i = 0; i + 1 < part.size(); i += 2) {
          bytes.push_back(static_cast<char>(std::stoi(part.substr(i, 2), nullptr, 16)));
        }
        *out = duckdb::Value::BLOB(reinterpret_cast<duckdb::const_data_ptr_t>(bytes.data()),
                                   bytes.size());
        return true;
      }
      case TypeKind::kTime:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz: {
        // The name is the stored integer in the type's unit; DuckDB's column may count in
        // another unit (TIME and TIMESTAMP WITH TIME ZONE in microseconds).
        int64_t stored = 0;
        if (!ParseInteger(part, &stored)) return false;
        int64_t units = 0;
        switch (duck.id()) {
          case LogicalTypeId::TIMESTAMP_SEC: units = 1; break;
          case LogicalTypeId::TIMESTAMP_MS: units = 1000; break;
          case LogicalTypeId::TIME:
          case LogicalTypeId::TIMESTAMP:
          case LogicalTypeId::TIMESTAMP_TZ: units = 1'000'000; break;
          case LogicalTypeId::TIME_NS:
          case LogicalTypeId::TIMESTAMP_NS: units = 1'000'000'000; break;
          default: return false;
        }
        int64_t value = 0;
        if (!ConvertUnits(stored, type.UnitsPerSecond(), units, &value)) return false;
        using duckdb::Value;
        switch (duck.id()) {
          case LogicalTypeId::TIMESTAMP_SEC:
            *out = Value::TIMESTAMPSEC(duckdb::timestamp_sec_t(value));
            break;
          case LogicalTypeId::TIMESTAMP_MS:
            *out = Value::TIMESTAMPMS(duckdb::timestamp_ms_t(value));
            break;
          case LogicalTypeId::TIME: *out = Value::TIME(duckdb::dtime_t(value)); break;
          case LogicalTypeId::TIMESTAMP: *out = Value::TIMESTAMP(duckdb::timestamp_t(value)); break;
          case LogicalTypeId::TIMESTAMP_TZ:
            *out = Value::TIMESTAMPTZ(duckdb::timestamp_tz_t(value));
            break;
          case LogicalTypeId::TIME_NS: *out = Value::TIME_NS(duckdb::dtime_ns_t(value)); break;
          default: *out = Value::TIMESTAMPNS(duckdb::timestamp_ns_t(value)); break;
        }
        return true;
      }
      default:
        // Floats are not exact (see FloatRange); DECIMAL, TIMESTAMP_LTZ and nested types
        // cannot be partition columns.
        return false;
    }
  } catch (const std::exception&) {
    return false;
  }
}

// FLOAT and DOUBLE partition names are printf's %g (6 significant digits, '.' written '_'): a
// name stands for every value that prints as it. The interval returned holds all of them, with
// room to spare. False for NaN and unreadable names.
bool FloatRange(const std::string& part, double* lo, double* hi) {
  std::string text = part;
  std::replace(text.begin(), text.end(), '_', '.');
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || text.empty() || std::isnan(d)) return false;
  if (std::isinf(d) || d == 0) {
    *lo = *hi = d;  // printed only for infinities and (signed) zero
    return true;
  }
  // A unit of the 5th significant digit: ten times the rounding, so log10's own rounding
  // cannot make the interval too narrow.
  double unit = std::pow(10.0, std::floor(std::log10(std::fabs(d))) - 4);
  *lo = d - unit;
  *hi = d + unit;
  return true;
}

// Whether `e` (a partition predicate over partition-key positions) can be true for some value in
// `ranges` (per position: an interval for FLOAT/DOUBLE columns, nothing for the others). Answers
// true whenever unsure; false only if no value in the intervals satisfies it.
using Ranges = std::vector<std::optional<std::pair<double, double>>>;

// The interval position of `e` if it is a partition column of `ranges` (or a FLOAT/DOUBLE cast
// of one, which is monotone), else -1.
int RangeColumn(const Expression& e, const Ranges& ranges) {
  const Expression* x = &e;
  if (x->GetExpressionClass() == duckdb::ExpressionClass::BOUND_CAST) {
    const auto& cast = x->Cast<duckdb::BoundCastExpression>();
    auto id = cast.return_type.id();
    if (cast.try_cast || (id != LogicalTypeId::FLOAT && id != LogicalTypeId::DOUBLE)) return -1;
    x = cast.child.get();
  }
  if (x->GetExpressionClass() != duckdb::ExpressionClass::BOUND_REF) return -1;
  auto index = x->Cast<duckdb::BoundReferenceExpression>().index;
  if (index >= ranges.size() || !ranges[index]) return -1;
  return static_cast<int>(index);
}

bool ConstantDouble(duckdb::ClientContext& context, const Expression& e, double* out) {
  if (!e.IsFoldable()) return false;
  try {
    duckdb::Value v = duckdb::ExpressionExecutor::EvaluateScalar(context, e);
    duckdb::Value d;
    if (v.IsNull() || !v.DefaultTryCastAs(duckdb::LogicalType::DOUBLE, d, nullptr, false)) {
      return false;
    }
    *out = d.GetValue<double>();
    return !std::isnan(*out);
  } catch (const std::exception&) {
    return false;
  }
}

// `lo..hi op c` may hold.
bool CompareMayHold(duckdb::ExpressionType op, double lo, double hi, double c) {
  switch (op) {
    case duckdb::ExpressionType::COMPARE_EQUAL:
    case duckdb::ExpressionType::COMPARE_NOT_DISTINCT_FROM: return lo <= c && c <= hi;
    case duckdb::ExpressionType::COMPARE_NOTEQUAL:
    case duckdb::ExpressionType::COMPARE_DISTINCT_FROM: return !(lo == c && hi == c);
    case duckdb::ExpressionType::COMPARE_LESSTHAN: return lo < c;
    case duckdb::ExpressionType::COMPARE_LESSTHANOREQUALTO: return lo <= c;
    case duckdb::ExpressionType::COMPARE_GREATERTHAN: return hi > c;
    case duckdb::ExpressionType::COMPARE_GREATERTHANOREQUALTO: return hi >= c;
    default: return true;
  }
}

bool MayHold(duckdb::ClientContext& context, const Expression& e, const Ranges& ranges) {
  switch (e.GetExpressionClass()) {
    case duckdb::ExpressionClass::BOUND_CONJUNCTION: {
      const auto& c = e.Cast<duckdb::BoundConjunctionExpression>();
      bool is_and = e.GetExpressionType() == duckdb::ExpressionType::CONJUNCTION_AND;
      for (const auto& child : c.children) {
        bool may = MayHold(context, *child, ranges);
        if (is_and && !may) return false;
        if (!is_and && may) return true;
      }
      return is_and;
    }
    case duckdb::ExpressionClass::BOUND_COMPARISON: {
      const auto& cmp = e.Cast<duckdb::BoundComparisonExpression>();
      double c = 0;
      int column = RangeColumn(*cmp.left, ranges);
      auto op = e.GetExpressionType();
      if (column >= 0 && ConstantDouble(context, *cmp.right, &c)) {
        return CompareMayHold(op, ranges[column]->first, ranges[column]->second, c);
      }
      column = RangeColumn(*cmp.right, ranges);
      if (column >= 0 && ConstantDouble(context, *cmp.left, &c)) {
        return CompareMayHold(duckdb::FlipComparisonExpression(op), ranges[column]->first,
                              ranges[column]->second, c);
      }
      return true;
    }
    case duckdb::ExpressionClass::BOUND_BETWEEN: {
      const auto& b = e.Cast<duckdb::BoundBetweenExpression>();
      int column = RangeColumn(*b.input, ranges);
      double lower = 0, upper = 0;
      if (column < 0 || !ConstantDouble(context, *b.lower, &lower) ||
          !ConstantDouble(context, *b.upper, &upper)) {
        return true;
      }
      auto [lo, hi] = *ranges[column];
      return CompareMayHold(b.lower_inclusive ? duckdb::ExpressionType::COMPARE_GREATERTHANOREQUALTO
                                              : duckdb::ExpressionType::COMPARE_GREATERTHAN,
                            lo, hi, lower) &&
             CompareMayHold(b.upper_inclusive ? duckdb::ExpressionType::COMPARE_LESSTHANOREQUALTO
                                              : duckdb::ExpressionType::COMPARE_LESSTHAN,
                            lo, hi, upper);
    }
    case duckdb::ExpressionClass::BOUND_OPERATOR: {
      if (e.GetExpressionType() != duckdb::ExpressionType::COMPARE_IN) return true;
      const auto& op = e.Cast<duckdb::BoundOperatorExpression>();
      if (op.children.empty()) return true;
      int column = RangeColumn(*op.children[0], ranges);
      if (column < 0) return true;
      for (size_t i = 1; i < op.children.size(); ++i) {
        double c = 0;
        if (!ConstantDouble(context, *op.children[i], &c)) return true;
        if (ranges[column]->first <= c && c <= ranges[column]->second) return true;
      }
      return false;
    }
    default:
      return true;
  }
}

// A DuckDB constant of a bucket-key column -> the table layer's value, or false.
bool BucketValue(const duckdb::Value& value, const table::LogicalType& type,
                 const duckdb::LogicalType& duck, table::Value* out) {
  using table::TypeKind;
  if (value.IsNull()) return false;
  duckdb::Value v;
  if (!value.DefaultTryCastAs(duck, v, nullptr, false)) return false;
  switch (type.kind) {
    case TypeKind::kBoolean:
      *out = table::Value::Bool(v.GetValue<bool>());
      return true;
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt:
    case TypeKind::kInt:
    case TypeKind::kBigInt:
      *out = table::Value::Int(v.GetValue<int64_t>());
      return true;
    case TypeKind::kDate:
      *out = table::Value::Int(v.GetValue<duckdb::date_t>().days);
      return true;
    case TypeKind::kString:
    case TypeKind::kBytes:
      *out = table::Value::Bytes(duckdb::StringValue::Get(v));
      return true;
    case TypeKind::kDecimal:
      switch (duck.InternalType()) {
        case duckdb::PhysicalType::INT16:
          *out = table::Value::Decimal(v.GetValueUnsafe<int16_t>());
          return true;
        case duckdb::PhysicalType::INT32:
          *out = table::Value::Decimal(v.GetValueUnsafe<int32_t>());
          return true;
        case duckdb::PhysicalType::INT64:
          *out = table::Value::Decimal(v.GetValueUnsafe<int64_t>());
          return true;
        case duckdb::PhysicalType::INT128: {
          auto h = v.GetValueUnsafe<duckdb::hugeint_t>();
          *out = table::Value::Decimal((static_cast<table::int128>(h.upper) << 64) |
                                       static_cast<table::int128>(h.lower));
          return true;
        }
        default:
          return false;
      }
    default:
      return false;  // floats, times and nested keys: no bucket pruning
  }
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// The values the filters allow for each of `columns` (table columns), as the table layer's
// values: the intersection of every list on a column. False when a column has none, a value
// does not convert, or the combinations exceed kMaxKeyCombinations.
bool AllowedValues(const ScanBindData& bind, const std::vector<int>& columns,
                   std::vector<std::vector<table::Value>>* allowed) {
  const auto& d = bind.meta->description;
  allowed->assign(columns.size(), {});
  std::vector<bool> seen(columns.size(), false);
  for (const auto& kv : bind.key_values) {
    const int pos = Position(columns, kv.column);
    if (pos < 0) continue;
    const auto column = static_cast<size_t>(kv.column);
    std::vector<table::Value> values;
    for (const auto& v : kv.values) {
      table::Value tv;
      if (!BucketValue(v, d.columns[column].type, bind.types[column], &tv)) return false;
      if (std::find(values.begin(), values.end(), tv) == values.end()) values.push_back(std::move(tv));
    }
    auto& list = (*allowed)[static_cast<size_t>(pos)];
    if (!seen[static_cast<size_t>(pos)]) {
      list = std::move(values);
      seen[static_cast<size_t>(pos)] = true;
    } else {  // AND of two lists on one column: their intersection
      std::vector<table::Value> both;
      for (const auto& a : list) {
        if (std::find(values.begin(), values.end(), a) != values.end()) both.push_back(a);
      }
      list = std::move(both);
    }
  }
  size_t combinations = 1;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!seen[i]) return false;
    combinations *= std::max<size_t>(1, (*allowed)[i].size());
    if (combinations > kMaxKeyCombinations) return false;
  }
  return true;
}

// Calls `visit` with every combination of one value per column (none if a list is empty).
template <typename Visit>
void ForEachCombination(const std::vector<std::vector<table::Value>>& allowed, Visit visit) {
  for (const auto& a : allowed) {
    if (a.empty()) return;
  }
  std::vector<size_t> index(allowed.size(), 0);
  while (true) {
    std::vector<table::Value> key;
    for (size_t i = 0; i < allowed.size(); ++i) key.push_back(allowed[i][index[i]]);
    if (!visit(std::move(key))) return;
    size_t i = 0;
    while (i < index.size() && ++index[i] == allowed[i].size()) index[i++] = 0;
    if (i == index.size()) return;
  }
}

}  // namespace

void PushdownComplexFilter(duckdb::ClientContext& context, duckdb::LogicalGet& get,
                           duckdb::FunctionData* bind_data,
                           duckdb::vector<duckdb::unique_ptr<Expression>>& filters) {
  auto& bind = bind_data->Cast<ScanBindData>();
  const auto& d = bind.meta->description;
  std::vector<int> partition_columns = Indexes(d, d.partition_keys);
  std::vector<int> key_columns = Indexes(d, d.bucket_keys);
  for (int c : Indexes(d, d.primary_key)) {
    if (Position(key_columns, c) < 0) key_columns.push_back(c);
  }
  for (auto& filter : filters) {
    if (filter->IsVolatile()) continue;
    bool usable = true;
    std::set<int> columns;
    duckdb::ExpressionIterator::EnumerateExpression(filter, [&](Expression& e) {
      auto cls = e.GetExpressionClass();
      if (cls == duckdb::ExpressionClass::BOUND_COLUMN_REF) {
        int column = ColumnOf(get, e);
        if (column < 0) usable = false;
        columns.insert(column);
      } else if (cls == duckdb::ExpressionClass::BOUND_PARAMETER ||
                 cls == duckdb::ExpressionClass::BOUND_SUBQUERY) {
        usable = false;
      }
    });
    if (!usable || columns.empty()) continue;

    bool partition_only = !partition_columns.empty();
    for (int c : columns) partition_only = partition_only && Position(partition_columns, c) >= 0;
    if (partition_only) {
      auto predicate = std::make_shared<PartitionPredicate>();
      predicate->text = filter->ToString();
      predicate->expression = filter->Copy();
      std::function<void(duckdb::unique_ptr<Expression>&)> rewrite =
          [&](duckdb::unique_ptr<Expression>& e) {
            int column = ColumnOf(get, *e);
            if (column >= 0) {
              e = duckdb::make_uniq<duckdb::BoundReferenceExpression>(
                  e->return_type, static_cast<duckdb::idx_t>(Position(partition_columns, column)));
              return;
            }
            duckdb::ExpressionIterator::EnumerateChildren(*e, rewrite);
          };
      rewrite(predicate->expression);
      bind.partition_predicates.push_back(std::move(predicate));
      // A partition column of the primary key: its values also make the keys of a lookup.
    }

    // k = c, c = k, k IN (c1, ...)
    if (columns.size() != 1) continue;
    int column = *columns.begin();
    if (Position(key_columns, column) < 0) continue;
    std::vector<duckdb::Value> values;
    if (filter->GetExpressionType() == duckdb::ExpressionType::COMPARE_EQUAL &&
        filter->GetExpressionClass() == duckdb::ExpressionClass::BOUND_COMPARISON) {
      auto& cmp = filter->Cast<duckdb::BoundComparisonExpression>();
      Expression* constant = cmp.left->IsFoldable() ? cmp.left.get() : cmp.right.get();
      Expression* other = constant == cmp.left.get() ? cmp.right.get() : cmp.left.get();
      if (ColumnOf(get, *other) != column || !constant->IsFoldable()) continue;
      values.push_back(duckdb::ExpressionExecutor::EvaluateScalar(context, *constant));
    } else if (filter->GetExpressionType() == duckdb::ExpressionType::COMPARE_IN &&
               filter->GetExpressionClass() == duckdb::ExpressionClass::BOUND_OPERATOR) {
      auto& op = filter->Cast<duckdb::BoundOperatorExpression>();
      if (op.children.empty() || ColumnOf(get, *op.children[0]) != column) continue;
      bool constants = true;
      for (size_t i = 1; i < op.children.size(); ++i) constants &= op.children[i]->IsFoldable();
      if (!constants) continue;
      for (size_t i = 1; i < op.children.size(); ++i) {
        values.push_back(duckdb::ExpressionExecutor::EvaluateScalar(context, *op.children[i]));
      }
    } else {
      continue;
    }
    bind.key_values.push_back(KeyColumnValues{column, std::move(values)});
  }
  SelectEndpoints(context, bind, bind.endpoints, &bind.pruning);
  bind.lookup.clear();
  LookupKeys(bind, &bind.lookup);
}

arrow::RecordBatchPtr LookupKeys(const ScanBindData& bind, std::string* explanation) {
  const auto& d = bind.meta->description;
  if (!d.has_primary_key()) return nullptr;
  // The key columns in table order, as the lookup's key batch has them.
  std::vector<int> columns;
  for (size_t c = 0; c < d.columns.size(); ++c) {
    if (d.IsPrimaryKey(d.columns[c].name)) columns.push_back(static_cast<int>(c));
  }
  std::vector<std::vector<table::Value>> allowed;
  if (!AllowedValues(bind, columns, &allowed)) return nullptr;
  std::vector<table::Row> keys;
  ForEachCombination(allowed, [&](std::vector<table::Value> key) {
    keys.push_back(std::move(key));
    return true;
  });
  std::vector<arrow::Field> fields;
  std::vector<table::LogicalType> types;
  std::vector<std::string> names;
  for (int c : columns) {
    const auto& col = d.columns[static_cast<size_t>(c)];
    fields.emplace_back(col.name, table::ToArrowType(col.type), false);
    types.push_back(col.type);
    names.push_back(col.name);
  }
  std::vector<const table::Row*> rows;
  for (const auto& k : keys) rows.push_back(&k);
  auto batch = table::RowsToBatch(rows, std::make_shared<arrow::Schema>(std::move(fields)), types);
  if (!batch.ok()) return nullptr;
  if (explanation != nullptr) {
    *explanation = std::to_string(keys.size()) + (keys.size() == 1 ? " key" : " keys") + " of (" +
                   Join(names, ", ") + ")";
  }
  return *batch;
}

std::vector<bool> SelectEndpoints(duckdb::ClientContext& context, const ScanBindData& bind,
                                  const std::vector<client::Endpoint>& endpoints,
                                  std::string* explanation) {
  const auto& d = bind.meta->description;
  std::vector<bool> keep(endpoints.size(), true);
  std::vector<std::string> reasons;

  // Partitions.
  std::vector<int> partition_columns = Indexes(d, d.partition_keys);
  if (!bind.partition_predicates.empty()) {
    std::map<std::string, bool> partition_kept;
    for (const auto& e : endpoints) {
      if (!e.partition || partition_kept.count(*e.partition)) continue;
      bool kept = true;
      std::vector<std::string> parts = table::SplitPartitionName(*e.partition);
      duckdb::vector<duckdb::LogicalType> types;
      for (int c : partition_columns) types.push_back(bind.types[static_cast<size_t>(c)]);
      duckdb::DataChunk chunk;
      bool readable = parts.size() == partition_columns.size();
      Ranges ranges(partition_columns.size());
      bool has_ranges = false;
      if (readable) {
        chunk.Initialize(context, types, 1);
        chunk.SetCardinality(1);
        for (size_t i = 0; i < parts.size() && readable; ++i) {
          auto column = static_cast<size_t>(partition_columns[i]);
          const auto kind = d.columns[column].type.kind;
          if (kind == table::TypeKind::kFloat || kind == table::TypeKind::kDouble) {
            double lo = 0, hi = 0;
            if (FloatRange(parts[i], &lo, &hi)) {
              ranges[i] = std::make_pair(lo, hi);
              has_ranges = true;
            } else {
              readable = false;
            }
            continue;
          }
          duckdb::Value v;
          readable = PartitionValue(parts[i], d.columns[column].type, types[i], &v);
          if (readable) chunk.SetValue(i, 0, v);
        }
      }
      if (readable && has_ranges) {
        // Not one value per column: only what the intervals rule out.
        for (const auto& predicate : bind.partition_predicates) {
          if (!MayHold(context, *predicate->expression, ranges)) kept = false;
        }
      } else if (readable) {
        for (const auto& predicate : bind.partition_predicates) {
          try {
            duckdb::ExpressionExecutor executor(context, *predicate->expression);
            duckdb::SelectionVector sel(1);
            if (executor.SelectExpression(chunk, sel) == 0) kept = false;
          } catch (const std::exception&) {
            // Cannot evaluate on the partition value: keep the partition.
          }
        }
      }
      partition_kept[*e.partition] = kept;
    }
    for (size_t i = 0; i < endpoints.size(); ++i) {
      if (endpoints[i].partition && !partition_kept[*endpoints[i].partition]) keep[i] = false;
    }
    std::vector<std::string> texts;
    for (const auto& p : bind.partition_predicates) texts.push_back(p->text);
    size_t kept_partitions = 0;
    for (const auto& [name, kept] : partition_kept) kept_partitions += kept ? 1 : 0;
    reasons.push_back("partitions " + std::to_string(kept_partitions) + " of " +
                      std::to_string(partition_kept.size()) + " by " + Join(texts, " AND "));
  }

  // Buckets: every bucket-key column needs a set of allowed values.
  std::vector<int> bucket_columns = Indexes(d, d.bucket_keys);
  std::vector<std::vector<table::Value>> allowed;
  if (!bucket_columns.empty() && d.bucket_count > 0 &&
      AllowedValues(bind, bucket_columns, &allowed)) {
    auto function =
        table::ParseBucketFunction(d.bucket_function.empty() ? "native" : d.bucket_function);
    std::vector<table::LogicalType> key_types;
    for (int c : bucket_columns) key_types.push_back(d.columns[static_cast<size_t>(c)].type);
    std::set<int32_t> buckets;
    bool usable = function.ok();
    if (usable) {
      ForEachCombination(allowed, [&](std::vector<table::Value> key) {
        auto bytes = table::EncodeBucketKey(*function, key, key_types);
        if (!bytes.ok()) {
          usable = false;
          return false;
        }
        buckets.insert(table::BucketOf(*function, *bytes, static_cast<int32_t>(d.bucket_count)));
        return true;
      });
    }
    if (usable) {
      for (size_t i = 0; i < endpoints.size(); ++i) {
        if (!buckets.count(endpoints[i].bucket)) keep[i] = false;
      }
      std::vector<std::string> names;
      for (int32_t b : buckets) names.push_back("b" + std::to_string(b));
      reasons.push_back("bucket key " + Join(d.bucket_keys, ", ") + " -> " +
                        (names.empty() ? std::string("none") : Join(names, ", ")));
    }
  }

  if (explanation != nullptr) {
    size_t kept = 0;
    for (bool k : keep) kept += k ? 1 : 0;
    *explanation = std::to_string(kept) + " of " + std::to_string(endpoints.size());
    if (!reasons.empty()) *explanation += " (" + Join(reasons, "; ") + ")";
  }
  return keep;
}

}  // namespace mink::query::internal
