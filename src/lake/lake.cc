#include "lake/lake.h"

#include <chrono>
#include <filesystem>

#include "base/clock.h"
#include "base/log.h"

namespace mink::lake {
namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<std::unique_ptr<Lake>> Lake::Start(const LakeOptions& options, metadata::MetadataLog* meta,
                                          table::TableStore* tables) {
  if (options.catalog != "builtin" && options.catalog != "rest") {
    return InvalidArgumentError("lake.catalog '" + options.catalog + "': builtin or rest");
  }
  if (options.catalog == "rest" && options.catalog_uri.empty()) {
    return InvalidArgumentError("lake.catalog rest needs lake.uri, the Iceberg REST catalog's URI");
  }
  std::unique_ptr<Lake> lake(new Lake());
  lake->tables_ = tables;
  lake->work_dir_ = options.work_dir;
  std::error_code ec;
  std::filesystem::create_directories(options.work_dir, ec);
  if (ec) return UnavailableError("lake work directory " + options.work_dir + ": " + ec.message());
  sql::DatabaseOptions db;
  db.threads = 2;
  MINK_ASSIGN_OR_RETURN(lake->db_, sql::Database::Open(db));
  MINK_ASSIGN_OR_RETURN(lake->warehouse_,
                        Warehouse::Open(options.warehouse_uri, "lake", options.work_dir + "/cache"));
  lake->committer_ = options.catalog == "rest"
                        ? RestCommitter(meta, tables, lake->warehouse_.get(),
                                        RestClientOptions{options.catalog_uri, options.catalog_token, "",
                                                          options.catalog_credential})
                        : BuiltinCommitter(meta, lake->warehouse_.get());
  lake->tiering_ = std::make_unique<Tiering>(meta, tables, lake->warehouse_.get(), lake->db_.get(), lake->committer_.get(),
                                             options.work_dir + "/tiering");
  lake->reader_ = std::make_unique<LakeReader>(meta, lake->warehouse_.get(), lake->db_.get(), LakeReader::kCacheBytes,
                                               lake->committer_.get());
  tables->SetLake(lake->reader_.get());
  lake->compaction_ = std::make_unique<LakeCompaction>(meta, tables, lake->warehouse_.get(), lake->reader_.get(),
                                                       lake->tiering_.get(), lake->db_.get(),
                                                       options.work_dir + "/compaction");
  lake->sweep_ = std::make_unique<OrphanSweep>(
      meta, tables, lake->warehouse_.get(), lake->tiering_.get(),
      [compaction = lake->compaction_.get()](const std::string& tag) { return compaction->InFlightTag(tag); });
  // Sees the tables' sequence numbers before the first round, so the first commit of this
  // start sweeps what rounds cut by an earlier start left behind.
  lake->sweep_->RunIfDue(SteadyMs());
  lake->worker_ = std::make_unique<LakeWorker>(
      options.tiers, std::chrono::milliseconds(200), [tiering = lake->tiering_.get(), sweep = lake->sweep_.get()] {
        for (const auto& name : tiering->DueTables(SystemClock::Get()->NowMillis())) {
          auto tiered = tiering->TierTable(name);
          if (!tiered.ok()) MINK_LOG_WARN("lake", "tiering {}: {}", name, tiered.status().ToString());
        }
        sweep->RunIfDue(SteadyMs());
      });
  // Compaction beside tiering: its rewrite does not hold tiering up (compaction.h).
  lake->compaction_worker_ = std::make_unique<LakeWorker>(
      options.tiers, std::chrono::milliseconds(500), [compaction = lake->compaction_.get()] {
        for (const auto& name : compaction->DueTables()) {
          auto compacted = compaction->CompactTable(name);
          if (!compacted.ok()) MINK_LOG_WARN("lake", "compacting {}: {}", name, compacted.status().ToString());
        }
      });
  lake->compaction_worker_->Start();
  lake->worker_->Start();
  if (!options.rest_listen.empty()) {
    lake->rest_ = std::make_unique<RestCatalog>(meta, tables, lake->warehouse_.get(), lake->tiering_.get(),
                                                options.rest_access);
    MINK_ASSIGN_OR_RETURN(lake->rest_server_,
                          http::HttpServer::Start(options.rest_listen, [rest = lake->rest_.get()](
                                                                           const http::ServerRequest& r) {
                            return rest->Handle(r);
                          },
                          4, options.rest_tls));
  }
  return lake;
}

void Lake::Stop() {
  if (rest_server_) rest_server_->Stop();
  if (worker_) worker_->Stop();
  if (compaction_worker_) compaction_worker_->Stop();
  if (tables_) tables_->SetLake(nullptr);
  tables_ = nullptr;
  if (!work_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(work_dir_, ec);
    work_dir_.clear();
  }
}

}  // namespace mink::lake
