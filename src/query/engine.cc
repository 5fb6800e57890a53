// The engine: an embedded DuckDB (sql::Database) with the cluster attached as the mink catalog.

// DuckDB first: its Arrow C structs (with their member functions) must be the ones declared; ours
// then see ARROW_C_DATA_INTERFACE and declare nothing (see duckdb_internal.h).
#include "query/duckdb_internal.h"
// (blank line: keeps the order above under clang-format)

#include "query/engine.h"

namespace mink::query {
namespace {

Status ErrorStatus(const duckdb::ErrorData& error) {
  return error.Type() == duckdb::ExceptionType::IO ? UnavailableError(error.Message())
                                                   : InvalidArgumentError(error.Message());
}

class EngineImpl : public Engine {
 public:
  Result<std::unique_ptr<Session>> Connect() override {
    MINK_ASSIGN_OR_RETURN(auto session, database_->Connect());
    session->SetTimeout(timeout_);
    return session;
  }
  Result<std::unique_ptr<Session>> ConnectAs(std::shared_ptr<client::Cluster> as) override {
    MINK_ASSIGN_OR_RETURN(auto session, database_->Connect([&](duckdb::ClientContext& context) {
      internal::ReadAs(context, std::move(as));
    }));
    session->SetTimeout(timeout_);
    return session;
  }
  client::Cluster& cluster() override { return *cluster_; }
  ScanRecorder& scans() override { return *recorder_; }

  std::shared_ptr<client::Cluster> cluster_;
  std::shared_ptr<ScanRecorder> recorder_;
  std::unique_ptr<sql::Database> database_;
  sql::StatementTimeout timeout_;
};

}  // namespace

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto engine = std::make_unique<EngineImpl>();
  MINK_ASSIGN_OR_RETURN(engine->cluster_, client::Cluster::Connect(options.bootstrap, options.authorization));
  engine->recorder_ = std::make_shared<ScanRecorder>();
  sql::DatabaseOptions database;
  database.threads = options.threads;
  database.configure = [&](duckdb::DBConfig& config) {
    internal::RegisterMinkStorage(config, engine->cluster_, engine->recorder_);
  };
  MINK_ASSIGN_OR_RETURN(engine->database_, sql::Database::Open(database));
  try {
    duckdb::Connection connection(engine->database_->duckdb());
    auto result = connection.Query("ATTACH '' AS mink (TYPE mink)");
    if (result->HasError()) return ErrorStatus(result->GetErrorObject());
  } catch (const std::exception& e) {
    return InternalError(e.what());
  }
  if (options.lock_down) {
    sql::SqlLimits limits;
    limits.memory_bytes = options.memory_bytes;
    limits.threads = options.threads;
    limits.local_files = options.allow_local_files;
    MINK_RETURN_IF_ERROR(engine->database_->LockDown(limits));
  }
  engine->timeout_ = options.timeout;
  return std::unique_ptr<Engine>(std::move(engine));
}

}  // namespace mink::query
