#pragma once
// TableLookup: a temporal join's lookups (`JOIN db.t FOR SYSTEM_TIME AS OF s.ts AS t ON t.id =
// s.customer`): each batch's keys looked up in the primary-key table's current rows
// (TableStore::Lookup, the KV state), so a stream row meets the table row that holds when the
// pipeline processes it. The ON must give every primary-key column.
//
// Thread-safe as TableStore is.

#include <string>

#include "base/result.h"
#include "stream/continuous_query.h"
#include "table/table_store.h"

namespace mink::stream {

struct TableLookup {
  // InvalidArgument naming the table when it is not a primary-key table or the join's columns
  // are not its primary key.
  static Result<TableLookup> Make(table::TableStore* tables, const QueryShape& shape);

  arrow::SchemaPtr schema;       // of the rows found: every column of the table
  ContinuousQuery::Lookup lookup;
};

}  // namespace mink::stream
