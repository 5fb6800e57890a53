#include "table/schema_change.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"

namespace mink::table {
namespace {

int IntegerRank(TypeKind k) {
  switch (k) {
    case TypeKind::kTinyInt: return 1;
    case TypeKind::kSmallInt: return 2;
    case TypeKind::kInt: return 3;
    case TypeKind::kBigInt: return 4;
    default: return 0;
  }
}

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// What makes a column part of the table's keys, for errors; "" if nothing does.
std::string KeyRole(const TableDescriptor& d, const std::string& name) {
  if (Contains(d.primary_key, name)) return "part of the primary key";
  if (Contains(d.partition_keys, name)) return "a partition key";
  if (Contains(d.bucket_keys, name)) return "part of the bucket key";
  return "";
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

Status Rename(TableDescriptor* d, const std::string& from, const std::string& to,
              const std::string& table_name) {
  const int i = d->schema.Find(from);
  if (i < 0) return InvalidArgumentError("--rename-column: no column '" + from + "' in " + table_name);
  if (to.empty()) return InvalidArgumentError("--rename-column " + from + "=: the new name is empty");
  if (IsReservedColumnName(to)) return InvalidArgumentError("column name '" + to + "' is reserved");
  if (d->schema.Find(to) >= 0) {
    return InvalidArgumentError("cannot rename '" + from + "' to '" + to + "': " + table_name +
                                " already has a column '" + to + "'");
  }
  d->schema.columns[static_cast<size_t>(i)].name = to;
  for (auto* list : {&d->primary_key, &d->partition_keys, &d->bucket_keys}) {
    std::replace(list->begin(), list->end(), from, to);
  }
  if (d->version_column == from) d->version_column = to;
  if (d->auto_increment_column == from) d->auto_increment_column = to;
  for (auto* map : {&d->aggregations, &d->listagg_delimiters}) {
    if (auto it = map->find(from); it != map->end()) {
      (*map)[to] = it->second;
      map->erase(it);
    }
  }
  std::map<std::string, std::string> options;
  const std::string prefix = "fields." + from + ".";
  for (auto& [k, v] : d->options) {
    options[k.rfind(prefix, 0) == 0 ? "fields." + to + "." + k.substr(prefix.size()) : k] = v;
  }
  d->options = std::move(options);
  return Status::Ok();
}

Status Drop(TableDescriptor* d, const std::string& name, const std::string& table_name) {
  const int i = d->schema.Find(name);
  if (i < 0) return InvalidArgumentError("--drop-column: no column '" + name + "' in " + table_name);
  if (std::string role = KeyRole(*d, name); !role.empty()) {
    return InvalidArgumentError("column '" + name + "' is " + role + " and cannot be dropped");
  }
  if (d->version_column == name) {
    return InvalidArgumentError("column '" + name +
                                "' is the versioned merge engine's version column and cannot be "
                                "dropped");
  }
  if (d->auto_increment_column == name) {
    return InvalidArgumentError("column '" + name + "' is the auto-increment column and cannot be "
                                "dropped");
  }
  if (d->schema.columns.size() == 1) {
    return InvalidArgumentError("column '" + name + "' is the last column of " + table_name);
  }
  d->schema.columns.erase(d->schema.columns.begin() + i);
  d->aggregations.erase(name);
  d->listagg_delimiters.erase(name);
  const std::string prefix = "fields." + name + ".";
  for (auto it = d->options.begin(); it != d->options.end();) {
    it = it->first.rfind(prefix, 0) == 0 ? d->options.erase(it) : std::next(it);
  }
  return Status::Ok();
}

Status Modify(TableDescriptor* d, const std::string& text, const std::string& table_name) {
  MINK_ASSIGN_OR_RETURN(Column wanted, ParseColumn(text));
  const int i = d->schema.Find(wanted.name);
  if (i < 0) {
    return InvalidArgumentError("--modify-column: no column '" + wanted.name + "' in " +
                                table_name);
  }
  Column& column = d->schema.columns[static_cast<size_t>(i)];
  LogicalType from = column.type;
  LogicalType to = wanted.type;
  if (std::string role = KeyRole(*d, column.name); !role.empty()) {
    if (!(from == to) || column.not_null != wanted.not_null) {
      return InvalidArgumentError("column '" + column.name + "' is " + role +
                                  ": its type cannot change (its encoding decides each row's "
                                  "key and bucket)");
    }
    return Status::Ok();
  }
  if (wanted.not_null && !column.not_null) {
    return InvalidArgumentError("column '" + column.name +
                                "' cannot become NOT NULL: rows written before may hold nulls");
  }
  // Nullability is checked above; compare the types alone.
  from.nullable = to.nullable = true;
  MINK_RETURN_IF_ERROR(CheckPromotion(column.name, from, to));
  if (d->auto_increment_column == column.name && to.kind != TypeKind::kBigInt) {
    return InvalidArgumentError("auto-increment column '" + column.name + "' must stay INT or BIGINT");
  }
  if (d->version_column == column.name && to.kind != TypeKind::kBigInt &&
      to.kind != TypeKind::kInt && !(from == to)) {
    return InvalidArgumentError("version column '" + column.name + "' must stay INT or BIGINT");
  }
  column.type = wanted.type;
  column.not_null = wanted.not_null;
  return Status::Ok();
}

Status Add(TableDescriptor* d, const TableAlteration::AddedColumn& added,
           const std::string& table_name) {
  MINK_ASSIGN_OR_RETURN(Column column, ParseColumn(added.column));
  if (IsReservedColumnName(column.name)) {
    return InvalidArgumentError("column name '" + column.name + "' is reserved");
  }
  if (d->schema.Find(column.name) >= 0) {
    return InvalidArgumentError("--add-column: " + table_name + " already has a column '" +
                                column.name + "'");
  }
  if (column.not_null) {
    return InvalidArgumentError("added column '" + column.name +
                                "' must be nullable: rows written before it have no value");
  }
  size_t at = d->schema.columns.size();
  if (!added.after.empty()) {
    const int after = d->schema.Find(added.after);
    if (after < 0) {
      return InvalidArgumentError("--after: no column '" + added.after + "' in " + table_name);
    }
    at = static_cast<size_t>(after) + 1;
  }
  column.id = d->next_column_id++;
  d->schema.columns.insert(d->schema.columns.begin() + static_cast<std::ptrdiff_t>(at),
                           std::move(column));
  return Status::Ok();
}

Status SetOption(TableDescriptor* d, const std::string& key, const std::string& value) {
  if (key == "table.log.ttl") {
    MINK_ASSIGN_OR_RETURN(auto ms, ParseDuration(value));
    d->log_ttl_ms = ms.count();
  } else if (key == "table.datalake.freshness") {
    MINK_ASSIGN_OR_RETURN(auto ms, ParseDuration(value));
    if (ms.count() < 100) return InvalidArgumentError("table.datalake.freshness must be at least 100ms");
    d->lake_freshness_ms = ms.count();
  } else if (key == "table.datalake.auto-compaction") {
    MINK_ASSIGN_OR_RETURN(d->lake_auto_compaction, ParseBool(value));
  } else if (key == "table.log.arrow.compression.type") {
    const std::string codec = Lower(value);
    if (codec != "none" && codec != "lz4" && codec != "lz4_frame" && codec != "zstd") {
      return InvalidArgumentError("table.log.arrow.compression.type must be none, lz4 or zstd");
    }
  }
  d->options[key] = value;
  return Status::Ok();
}

Status CheckAlterable(const std::string& key, const std::string& flag) {
  const auto& alterable = AlterableOptions();
  if (std::find(alterable.begin(), alterable.end(), key) != alterable.end()) return Status::Ok();
  std::string list;
  for (const auto& k : alterable) list += (list.empty() ? "" : ", ") + k;
  return InvalidArgumentError(flag + ": option '" + key +
                              "' cannot change after the table is made (these can: " + list + ")");
}

}  // namespace

Status CheckPromotion(const std::string& column, const LogicalType& from, const LogicalType& to) {
  if (from == to) return Status::Ok();
  auto refuse = [&](const std::string& why) {
    return InvalidArgumentError("column '" + column + "' cannot change from " + from.ToString() +
                                " to " + to.ToString() + ": " + why);
  };
  const int from_rank = IntegerRank(from.kind), to_rank = IntegerRank(to.kind);
  if (from_rank > 0 && to_rank > 0) {
    if (to_rank > from_rank) return Status::Ok();
    return refuse("integers only widen (TINYINT -> SMALLINT -> INT -> BIGINT)");
  }
  if (to.kind == TypeKind::kDouble && (from_rank > 0 || from.kind == TypeKind::kFloat)) {
    return Status::Ok();
  }
  if (from.kind == TypeKind::kDecimal && to.kind == TypeKind::kDecimal) {
    if (to.precision - to.scale >= from.precision - from.scale && to.scale >= from.scale) {
      return Status::Ok();
    }
    return refuse("a DECIMAL keeps its values only with as many integer digits and as many "
                  "decimal places, or more");
  }
  return refuse("only widening changes keep every value (integers to wider integers or DOUBLE, "
                "FLOAT to DOUBLE, DECIMAL to a wider DECIMAL, NOT NULL to nullable)");
}

const std::vector<std::string>& AlterableOptions() {
  static const std::vector<std::string> kOptions = {"table.log.ttl",
                                                    "table.log.arrow.compression.type",
                                                    "table.datalake.freshness",
                                                    "table.datalake.auto-compaction"};
  return kOptions;
}

Result<TableDescriptor> AlterDescriptor(const TableDescriptor& current,
                                        const TableAlteration& change,
                                        const std::string& table_name) {
  if (change.empty()) return InvalidArgumentError("an alter of " + table_name + " changes nothing");
  TableDescriptor d = current;
  for (const auto& [from, to] : change.rename_columns) {
    MINK_RETURN_IF_ERROR(Rename(&d, from, to, table_name));
  }
  for (const auto& name : change.drop_columns) MINK_RETURN_IF_ERROR(Drop(&d, name, table_name));
  for (const auto& text : change.modify_columns) MINK_RETURN_IF_ERROR(Modify(&d, text, table_name));
  for (const auto& added : change.add_columns) MINK_RETURN_IF_ERROR(Add(&d, added, table_name));
  for (const auto& [key, value] : change.set_options) {
    MINK_RETURN_IF_ERROR(CheckAlterable(key, "--set"));
    MINK_RETURN_IF_ERROR(SetOption(&d, key, value));
  }
  for (const auto& key : change.reset_options) {
    MINK_RETURN_IF_ERROR(CheckAlterable(key, "--reset"));
    d.options.erase(key);
    if (key == "table.log.ttl") d.log_ttl_ms = TableDescriptor{}.log_ttl_ms;
    if (key == "table.datalake.freshness") d.lake_freshness_ms = TableDescriptor{}.lake_freshness_ms;
    if (key == "table.datalake.auto-compaction") d.lake_auto_compaction = false;
  }
  if (change.changes_columns()) {
    d.past_schemas.push_back(current.schema);
    d.schema.schema_id = current.schema.schema_id + 1;
  }
  return d;
}

}  // namespace mink::table
