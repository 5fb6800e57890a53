// The table filters of a tiered table's union read that go to the node for the Parquet reads of
// the lake's share (the ticket's lake_filters, docs/flight-api.md): comparisons, IN and IS [NOT]
// NULL on columns whose values DuckDB writes as text that casts back exactly. Anything else is
// left out, which only lets more rows through: the scan applies every filter again.

// DuckDB first (see duckdb_internal.h).
#include "query/duckdb_internal.h"
// (blank line: keeps the order above under clang-format)

#include "duckdb/planner/filter/conjunction_filter.hpp"
#include "duckdb/planner/filter/constant_filter.hpp"
#include "duckdb/planner/filter/in_filter.hpp"
#include "duckdb/planner/filter/optional_filter.hpp"
#include "duckdb/planner/table_filter.hpp"

namespace mink::query::internal {
namespace {

using duckdb::LogicalTypeId;

// Column types whose values DuckDB writes as text that casts back to the same value.
bool ExactText(const duckdb::LogicalType& type) {
  switch (type.id()) {
    case LogicalTypeId::BOOLEAN:
    case LogicalTypeId::TINYINT:
    case LogicalTypeId::SMALLINT:
    case LogicalTypeId::INTEGER:
    case LogicalTypeId::BIGINT:
    case LogicalTypeId::DECIMAL:
    case LogicalTypeId::VARCHAR:
    case LogicalTypeId::DATE:
    case LogicalTypeId::TIMESTAMP:
    case LogicalTypeId::TIMESTAMP_MS:
    case LogicalTypeId::TIMESTAMP_SEC:
      return true;
    default:
      return false;
  }
}

const char* ComparisonOp(duckdb::ExpressionType type) {
  switch (type) {
    case duckdb::ExpressionType::COMPARE_EQUAL: return "=";
    case duckdb::ExpressionType::COMPARE_NOTEQUAL: return "!=";
    case duckdb::ExpressionType::COMPARE_LESSTHAN: return "<";
    case duckdb::ExpressionType::COMPARE_LESSTHANOREQUALTO: return "<=";
    case duckdb::ExpressionType::COMPARE_GREATERTHAN: return ">";
    case duckdb::ExpressionType::COMPARE_GREATERTHANOREQUALTO: return ">=";
    default: return nullptr;
  }
}

// Appends what of `filter` on `column` a lake filter can say; a part it cannot is left out,
// which only lets more rows through (the scan applies every filter again).
void AddLakeFilters(const duckdb::TableFilter& filter, const std::string& column,
                    const duckdb::LogicalType& type, std::vector<table::LakeFilter>* out) {
  switch (filter.filter_type) {
    case duckdb::TableFilterType::CONSTANT_COMPARISON: {
      const auto& f = filter.Cast<duckdb::ConstantFilter>();
      const char* op = ComparisonOp(f.comparison_type);
      if (op == nullptr || !ExactText(type) || f.constant.IsNull()) return;
      out->push_back({column, op, {f.constant.ToString()}});
      return;
    }
    case duckdb::TableFilterType::IN_FILTER: {
      const auto& f = filter.Cast<duckdb::InFilter>();
      if (!ExactText(type) || f.values.empty()) return;
      table::LakeFilter in{column, "in", {}};
      for (const auto& v : f.values) {
        if (v.IsNull()) return;
        in.values.push_back(v.ToString());
      }
      out->push_back(std::move(in));
      return;
    }
    case duckdb::TableFilterType::IS_NULL: out->push_back({column, "is_null", {}}); return;
    case duckdb::TableFilterType::IS_NOT_NULL: out->push_back({column, "is_not_null", {}}); return;
    case duckdb::TableFilterType::CONJUNCTION_AND:
      for (const auto& child : filter.Cast<duckdb::ConjunctionAndFilter>().child_filters) {
        AddLakeFilters(*child, column, type, out);
      }
      return;
    case duckdb::TableFilterType::OPTIONAL_FILTER: {
      // DuckDB evaluates an optional filter again above the scan; it still holds for every row.
      const auto& f = filter.Cast<duckdb::OptionalFilter>();
      if (f.child_filter) AddLakeFilters(*f.child_filter, column, type, out);
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::vector<table::LakeFilter> LakeFilters(const ScanBindData& bind, const duckdb::TableFilterSet& filters,
                                           const duckdb::vector<duckdb::column_t>& column_ids) {
  std::vector<table::LakeFilter> out;
  for (const auto& [position, filter] : filters.filters) {
    const duckdb::column_t id = column_ids[position];
    if (id >= bind.types.size()) continue;
    AddLakeFilters(*filter, bind.meta->schema->field(static_cast<int>(id)).name(), bind.types[id], &out);
  }
  return out;
}

}  // namespace mink::query::internal
