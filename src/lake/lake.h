#pragma once
// Lake: a node's share of the lakehouse: the embedded DuckDB that writes and reads Parquet, the
// warehouse, the tiering worker (running while `tiers()` says this node tiers: the cluster's
// coordinator, or a node alone) and the reader union reads use. Start wires the reader into the
// table layer; Stop takes it out and stops tiering. After each round the worker sweeps files of
// rounds that never committed (orphan_sweep.h); another worker compacts the tables that ask for
// it (compaction.h).
// With rest_listen, the built-in catalog is also served over the Iceberg REST API
// (rest_catalog.h).

#include <functional>
#include <memory>
#include <string>

#include "http/http_server.h"
#include "lake/compaction.h"
#include "lake/lake_reader.h"
#include "lake/orphan_sweep.h"
#include "lake/rest_catalog.h"
#include "lake/tiering.h"
#include "lake/warehouse.h"
#include "metadata/metadata_log.h"
#include "sql/database.h"
#include "table/table_store.h"

namespace mink::lake {

struct LakeOptions {
  std::string catalog = "builtin";  // or rest: an external Iceberg REST catalog (committer.h)
  std::string catalog_uri;          // rest: the catalog's URI
  std::string catalog_token;        // rest: its bearer token ("": none)
  std::string catalog_credential;   // rest: client id:secret for its OAuth2 token endpoint ("": none)
  std::string warehouse_uri;  // as --storage-uri takes it
  std::string work_dir;       // local scratch: Parquet files being written, fetched files
  std::function<bool()> tiers;
  std::string rest_listen;  // serve the catalog over the Iceberg REST API here ("": off)
  tls::ServerFiles rest_tls;  // and over HTTPS with a certificate
  RestAccessOptions rest_access;  // its callers: Mink's users and ACLs (none: authentication off)
};

class Lake {
 public:
  static Result<std::unique_ptr<Lake>> Start(const LakeOptions& options,
                                             metadata::MetadataLog* meta, table::TableStore* tables);
  ~Lake() { Stop(); }
  void Stop();

  Tiering& tiering() { return *tiering_; }
  LakeReader& reader() { return *reader_; }
  LakeCompaction& compaction() { return *compaction_; }
  OrphanSweep& sweep() { return *sweep_; }
  const Warehouse& warehouse() const { return *warehouse_; }
  // The port of the Iceberg REST catalog; 0 when it is not served.
  int rest_port() const { return rest_server_ ? rest_server_->port() : 0; }

 private:
  Lake() = default;
  table::TableStore* tables_ = nullptr;
  std::string work_dir_;
  std::unique_ptr<sql::Database> db_;
  std::unique_ptr<Warehouse> warehouse_;
  std::unique_ptr<LakeCommitter> committer_;
  std::unique_ptr<Tiering> tiering_;
  std::unique_ptr<LakeReader> reader_;
  std::unique_ptr<LakeCompaction> compaction_;
  std::unique_ptr<OrphanSweep> sweep_;
  std::unique_ptr<LakeWorker> worker_;             // tiering rounds, then the orphan sweep
  std::unique_ptr<LakeWorker> compaction_worker_;  // compaction, beside tiering
  std::unique_ptr<RestCatalog> rest_;
  std::unique_ptr<http::HttpServer> rest_server_;
};

}  // namespace mink::lake
