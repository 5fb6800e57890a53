#pragma once
// Lake: a node's share of the lakehouse: the embedded DuckDB that writes and reads Parquet, the
// warehouse, the tiering worker (running while `tiers()` says this node tiers: the cluster's
// coordinator, or a node alone) and the reader union reads use. Start wires the reader into the
// table layer; Stop takes it out and stops tiering.

#include <functional>
#include <memory>
#include <string>

#include "lake/lake_reader.h"
#include "lake/tiering.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "sql/database.h"
#include "table/table_store.h"

namespace mink::lake {

struct LakeOptions {
  std::string catalog = "builtin";
  std::string warehouse_uri;  // as --storage-uri takes it
  std::string work_dir;       // local scratch: Parquet files being written, fetched files
  std::function<bool()> tiers;
};

class Lake {
 public:
  static Result<std::unique_ptr<Lake>> Start(const LakeOptions& options,
                                             metadata::MetadataLog* meta, table::TableStore* tables);
  ~Lake() { Stop(); }
  void Stop();

  Tiering& tiering() { return *tiering_; }
  const Warehouse& warehouse() const { return *warehouse_; }

 private:
  Lake() = default;
  table::TableStore* tables_ = nullptr;
  std::string work_dir_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<Tiering> tiering_;
  std::unique_ptr<LakeReader> reader_;
  std::unique_ptr<TieringWorker> worker_;
};

}  // namespace mink::lake
