#include "lake/parquet.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "sql/quote.h"

namespace mink::lake {
namespace {

using table::TypeKind;

using sql::QuoteIdentifier;
using sql::QuoteLiteral;

// The DuckDB type a column is stored as in Parquet (Iceberg's types: ints, microseconds).
std::string StoredType(const table::LogicalType& t) {
  switch (t.kind) {
    case TypeKind::kTinyInt:
    case TypeKind::kSmallInt: return "INTEGER";
    case TypeKind::kTimestamp: return "TIMESTAMP";
    case TypeKind::kTimestampLtz: return "TIMESTAMPTZ";
    case TypeKind::kTime: return "TIME";
    default: return "";
  }
}

// The DuckDB type whose Arrow form is the column's Arrow type (or close to it: see Retype).
std::string ReadType(const table::LogicalType& t) {
  switch (t.kind) {
    case TypeKind::kBoolean: return "BOOLEAN";
    case TypeKind::kTinyInt: return "TINYINT";
    case TypeKind::kSmallInt: return "SMALLINT";
    case TypeKind::kInt: return "INTEGER";
    case TypeKind::kBigInt: return "BIGINT";
    case TypeKind::kFloat: return "FLOAT";
    case TypeKind::kDouble: return "DOUBLE";
    case TypeKind::kDecimal:
      return "DECIMAL(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
    case TypeKind::kString: return "VARCHAR";
    case TypeKind::kBytes: return "BLOB";
    case TypeKind::kDate: return "DATE";
    case TypeKind::kTime: return "TIME";
    case TypeKind::kTimestamp:
      return t.precision == 0 ? "TIMESTAMP_S" : t.precision <= 3 ? "TIMESTAMP_MS" : "TIMESTAMP";
    case TypeKind::kTimestampLtz: return "TIMESTAMPTZ";
    default: return "VARCHAR";
  }
}

int64_t UnitsPerSecond(arrow::TimeUnit unit) {
  switch (unit) {
    case arrow::TimeUnit::kSecond: return 1;
    case arrow::TimeUnit::kMilli: return 1000;
    case arrow::TimeUnit::kMicro: return 1'000'000;
    case arrow::TimeUnit::kNano: return 1'000'000'000;
  }
  return 1;
}

// A time or timestamp column in another unit (DuckDB answers TIME and TIMESTAMPTZ in
// microseconds); other columns as they are.
Result<arrow::ArrayDataPtr> Retype(const arrow::ArrayDataPtr& in, const arrow::DataTypePtr& to) {
  const arrow::DataType& from = *in->type;
  const bool temporal = (from.id() == arrow::TypeId::kTimestamp && to->id() == arrow::TypeId::kTimestamp) ||
                        ((from.id() == arrow::TypeId::kTime32 || from.id() == arrow::TypeId::kTime64) &&
                         (to->id() == arrow::TypeId::kTime32 || to->id() == arrow::TypeId::kTime64));
  if (!temporal || (from.id() == to->id() && from.unit() == to->unit() &&
                    from.timezone() == to->timezone())) {
    return in;
  }
  const int64_t f = UnitsPerSecond(from.unit()), t = UnitsPerSecond(to->unit());
  const bool from32 = from.id() == arrow::TypeId::kTime32, to32 = to->id() == arrow::TypeId::kTime32;
  const int64_t n = in->length;
  std::string out(static_cast<size_t>(n * (to32 ? 4 : 8)), '\0');
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = from32 ? in->buffers[1]->data_as<int32_t>()[i] : in->buffers[1]->data_as<int64_t>()[i];
    v = t >= f ? v * (t / f) : v / (f / t);
    if (to32) {
      const auto w = static_cast<int32_t>(v);
      std::memcpy(out.data() + i * 4, &w, 4);
    } else {
      std::memcpy(out.data() + i * 8, &v, 8);
    }
  }
  auto data = std::make_shared<arrow::ArrayData>();
  data->type = to;
  data->length = n;
  data->null_count = in->null_count;
  data->buffers = {in->buffers[0], arrow::Buffer::FromString(std::move(out))};
  return arrow::ArrayDataPtr(std::move(data));
}

// field id -> the column's name in the local Parquet file `path`.
Result<std::map<int32_t, std::string>> FieldNames(sql::Session& session, const std::string& path) {
  MINK_ASSIGN_OR_RETURN(auto batches,
                        session.Collect("SELECT name, CAST(field_id AS BIGINT) FROM parquet_schema(" +
                                        QuoteLiteral(path) + ") WHERE field_id IS NOT NULL"));
  std::map<int32_t, std::string> names;
  for (const auto& b : batches) {
    const auto& name = b->Column(0);
    const auto& id = b->Column(1);
    const int32_t* offsets = name->buffers[1]->data_as<int32_t>();
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      names[static_cast<int32_t>(id->buffers[1]->data_as<int64_t>()[i])] =
          std::string(name->buffers[2]->data_as<char>() + offsets[i],
                      static_cast<size_t>(offsets[i + 1] - offsets[i]));
    }
  }
  return names;
}

// The filters as a SQL condition over the columns' current names ("": none).
Result<std::string> FilterSql(const LakeLayout& layout, const std::vector<table::LakeFilter>& filters) {
  static const std::set<std::string> kComparisons = {"=", "!=", "<", "<=", ">", ">="};
  std::string where;
  for (const auto& f : filters) {
    auto field = std::find_if(layout.fields().begin(), layout.fields().end(),
                              [&](const IcebergField& x) { return x.name == f.column; });
    if (field == layout.fields().end()) {
      return InvalidArgumentError("lake filter: the table has no column \"" + f.column + "\"");
    }
    const std::string column = QuoteIdentifier(f.column), type = ReadType(field->mink_type);
    auto value = [&](const std::string& text) { return "CAST(" + QuoteLiteral(text) + " AS " + type + ")"; };
    std::string condition;
    if (kComparisons.count(f.op) != 0 && f.values.size() == 1) {
      condition = column + " " + f.op + " " + value(f.values[0]);
    } else if (f.op == "in" && !f.values.empty()) {
      for (const auto& v : f.values) condition += (condition.empty() ? "" : ", ") + value(v);
      condition = column + " IN (" + condition + ")";
    } else if ((f.op == "is_null" || f.op == "is_not_null") && f.values.empty()) {
      condition = column + (f.op == "is_null" ? " IS NULL" : " IS NOT NULL");
    } else {
      return InvalidArgumentError("lake filter on \"" + f.column + "\": op \"" + f.op + "\" with " +
                                  std::to_string(f.values.size()) +
                                  " values (=, !=, <, <=, >, >= take one, in one or more, is_null and "
                                  "is_not_null none)");
    }
    where += (where.empty() ? "" : " AND ") + condition;
  }
  return where;
}

}  // namespace


Result<int64_t> ParquetFiles::Write(const LakeLayout& layout, const arrow::SchemaPtr& schema,
                                    std::vector<arrow::RecordBatchPtr> batches,
                                    const std::string& path) {
  MINK_ASSIGN_OR_RETURN(auto session, db_->Connect());
  MINK_RETURN_IF_ERROR(session->RegisterBatches("mink_rows", schema, std::move(batches)));
  std::string select, ids;
  for (const auto& f : schema->fields()) {
    const IcebergField* field = nullptr;
    for (const auto& candidate : layout.fields()) {
      if (candidate.name == f.name()) field = &candidate;
    }
    if (field == nullptr) return InternalError("column " + f.name() + " is not in the lake schema");
    const std::string stored = StoredType(field->mink_type);
    select += (select.empty() ? "" : ", ") +
              (stored.empty() ? QuoteIdentifier(f.name()) : "CAST(" + QuoteIdentifier(f.name()) + " AS " + stored + ")") +
              " AS " + QuoteIdentifier(f.name());
    ids += (ids.empty() ? "" : ", ") + QuoteLiteral(f.name()) + ": " + std::to_string(field->id);
  }
  MINK_RETURN_IF_ERROR(session->Run("COPY (SELECT " + select + " FROM mink_rows) TO " +
                                    QuoteLiteral(path) + " (FORMAT parquet, COMPRESSION zstd, FIELD_IDS {" +
                                    ids + "})"));
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return UnavailableError("Parquet file " + path + ": " + ec.message());
  return static_cast<int64_t>(size);
}

Result<std::vector<arrow::RecordBatchPtr>> ParquetFiles::Read(const table::ResolvedTable& table,
                                                              const LakeLayout& layout,
                                                              const std::string& path,
                                                              const std::vector<std::string>& deletes,
                                                              const table::LakeScan& scan) {
  std::vector<int> columns = scan.columns;
  if (columns.empty()) {
    for (size_t i = 0; i < layout.fields().size(); ++i) columns.push_back(static_cast<int>(i));
  }
  MINK_ASSIGN_OR_RETURN(std::string where, FilterSql(layout, scan.filters));
  MINK_ASSIGN_OR_RETURN(auto session, db_->Connect());
  MINK_RETURN_IF_ERROR(session->UseTimeZone("UTC"));
  MINK_ASSIGN_OR_RETURN(auto names, FieldNames(*session, path));
  // Every column the filters name is read (under its current name) for them; only the scan's
  // columns are answered.
  std::string select, answer;
  for (size_t i = 0; i < layout.fields().size(); ++i) {
    const auto& field = layout.fields()[i];
    const bool answered = std::binary_search(columns.begin(), columns.end(), static_cast<int>(i));
    const bool filtered = std::any_of(scan.filters.begin(), scan.filters.end(),
                                      [&](const table::LakeFilter& f) { return f.column == field.name; });
    if (!answered && !filtered) continue;
    auto found = names.find(field.id);
    const std::string type = ReadType(field.mink_type);
    select += (select.empty() ? "" : ", ") +
              (found == names.end() ? "CAST(NULL AS " + type + ")"
                                    : "CAST(d." + QuoteIdentifier(found->second) + " AS " + type + ")") +
              " AS " + QuoteIdentifier(field.name);
    if (answered) answer += (answer.empty() ? "" : ", ") + QuoteIdentifier(field.name);
  }
  std::string sql = "SELECT " + select + " FROM read_parquet(" + QuoteLiteral(path) + ") d";
  if (!deletes.empty() && !layout.identifier_ids().empty()) {
    // The keys of every delete file, each read by field id, then the rows none of them names.
    std::string keys;
    for (const auto& file : deletes) {
      MINK_ASSIGN_OR_RETURN(auto delete_names, FieldNames(*session, file));
      std::string columns;
      for (size_t k = 0; k < layout.identifier_ids().size(); ++k) {
        auto name = delete_names.find(layout.identifier_ids()[k]);
        if (name == delete_names.end()) {
          return DataLossError("equality delete file " + file + " lacks key field " +
                               std::to_string(layout.identifier_ids()[k]));
        }
        columns += (columns.empty() ? "" : ", ") + QuoteIdentifier(name->second) + " AS k" + std::to_string(k);
      }
      keys += (keys.empty() ? "" : " UNION ALL ") + std::string("SELECT ") + columns +
              " FROM read_parquet(" + QuoteLiteral(file) + ")";
    }
    std::string match;
    for (size_t k = 0; k < layout.identifier_ids().size(); ++k) {
      auto name = names.find(layout.identifier_ids()[k]);
      if (name == names.end()) return DataLossError("data file " + path + " lacks a key column");
      match += (match.empty() ? "" : " AND ") + std::string("e.k") + std::to_string(k) +
               " IS NOT DISTINCT FROM d." + QuoteIdentifier(name->second);
    }
    sql += " WHERE NOT EXISTS (SELECT 1 FROM (" + keys + ") e WHERE " + match + ")";
  }
  // DuckDB pushes the outer filters into the Parquet scan (row groups their statistics rule
  // out are skipped).
  sql = "SELECT " + answer + " FROM (" + sql + ")" + (where.empty() ? "" : " WHERE " + where);
  MINK_ASSIGN_OR_RETURN(auto batches, session->Collect(sql));
  std::vector<arrow::Field> fields;
  for (int c : columns) fields.push_back(table.schema->field(c));
  auto schema = std::make_shared<arrow::Schema>(std::move(fields));
  std::vector<arrow::RecordBatchPtr> out;
  for (const auto& b : batches) {
    std::vector<arrow::ArrayDataPtr> arrays;
    for (int c = 0; c < b->num_columns(); ++c) {
      MINK_ASSIGN_OR_RETURN(auto column, Retype(b->Column(c), schema->field(c).type()));
      arrays.push_back(std::move(column));
    }
    MINK_ASSIGN_OR_RETURN(auto batch, arrow::RecordBatch::Make(schema, b->num_rows(), std::move(arrays)));
    out.push_back(std::move(batch));
  }
  return out;
}

}  // namespace mink::lake
