#pragma once
// Changing a table after it was made (`mink table alter`, the alter-table action, ALTER TABLE in
// mink-query): columns added, dropped, renamed and widened, and the options that may change. A
// change of columns makes a new schema (its id one higher); the old one is kept in the
// descriptor, and data written under it is read under the new one (schema_evolution.h).

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "table/descriptor.h"

namespace mink::table {

// One alter request. Its parts are applied in this order: renames, drops, type changes,
// additions, then options; each is checked against the table as the earlier parts left it.
struct TableAlteration {
  struct AddedColumn {
    std::string column;  // "name TYPE" (nullable)
    std::string after;   // the column it follows; "" = last
  };
  std::vector<AddedColumn> add_columns;
  std::vector<std::string> drop_columns;
  std::vector<std::pair<std::string, std::string>> rename_columns;  // from, to
  std::vector<std::string> modify_columns;  // "name TYPE [NOT NULL]": the new type
  std::map<std::string, std::string> set_options;
  std::vector<std::string> reset_options;

  bool changes_columns() const {
    return !add_columns.empty() || !drop_columns.empty() || !rename_columns.empty() ||
           !modify_columns.empty();
  }
  bool empty() const { return !changes_columns() && set_options.empty() && reset_options.empty(); }
};

// Whether a column of type `from` may become `to`: widening that keeps every value (TINYINT ->
// SMALLINT -> INT -> BIGINT, FLOAT -> DOUBLE, DECIMAL(p,s) -> DECIMAL(p',s') with p'-s' >= p-s
// and s' >= s), integers to DOUBLE (exact up to 2^53), or the same type. InvalidArgument naming
// `column` and the two types otherwise.
Status CheckPromotion(const std::string& column, const LogicalType& from, const LogicalType& to);

// The options an alter may set or reset.
const std::vector<std::string>& AlterableOptions();

// The descriptor after `change`, validated. Errors are InvalidArgument and name the column or
// option and the reason (a key column cannot be dropped or retyped, an added column must be
// nullable, ...). An empty change is refused.
Result<TableDescriptor> AlterDescriptor(const TableDescriptor& d, const TableAlteration& change,
                                        const std::string& table_name);

}  // namespace mink::table
