#include "node/node.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "base/file_lock.h"
#include "base/log.h"
#include "base/strings.h"
#include "metrics/metrics.h"
#include "node/http_access.h"
#include "tls/tls_files.h"
#include "object_store/metered_store.h"
#include "object_store/storage_uri.h"

namespace mink::node {
namespace {

// The configuration's first user (auth.bootstrap-user), made unless it exists; without one, a
// cluster with no user lets nobody in, and the log says how to make one.
Status BootstrapUser(const config::ServeConfig& config, auth::UserDirectory* users) {
  if (config.auth_bootstrap_user.empty()) {
    if (users->empty()) {
      MINK_LOG_WARN("auth", "authentication is on and the cluster has no user: nobody can connect until "
                            "a node starts with --auth-bootstrap-user (docs/operations.md, Security)");
    }
    return Status::Ok();
  }
  std::string password = config.auth_bootstrap_password;
  if (!config.auth_bootstrap_password_file.empty()) {
    std::ifstream in(config.auth_bootstrap_password_file);
    if (!in || !std::getline(in, password)) {
      return InvalidArgumentError("--auth-bootstrap-password-file: cannot read a line of " +
                                  config.auth_bootstrap_password_file);
    }
  }
  if (password.empty()) {
    return InvalidArgumentError("--auth-bootstrap-user " + config.auth_bootstrap_user +
                                " needs a password: --auth-bootstrap-password-file or MINK_AUTH_BOOTSTRAP_PASSWORD");
  }
  return users->EnsureBootstrapUser(config.auth_bootstrap_user, password).WithContext("--auth-bootstrap-user");
}

// The file of a sqlite: URL ("" for another database).
std::string SqlitePath(const std::string& meta_url) {
  if (meta_url.rfind("sqlite:", 0) != 0) return "";
  std::string path = meta_url.substr(7);
  if (path.rfind("//", 0) == 0) path = path.substr(2);
  return path;
}

// The directory that will hold a sqlite: database must exist before SQLite opens it.
Status PrepareMetaDirectory(const std::string& meta_url) {
  const std::string path = SqlitePath(meta_url);
  if (path.empty()) return Status::Ok();
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Status::Ok();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return UnavailableError("cannot create " + parent.string() + ": " + ec.message());
  return Status::Ok();
}

// SQLite serves one node: it holds an exclusive lock beside the database file for its whole
// life, taken before it registers (a second node with the same id would fence the first), so two
// nodes started at the same moment cannot both pass. The kernel drops it if the node dies.
Result<std::unique_ptr<FileLock>> LockSqliteDatabase(const std::string& meta_url) {
  const std::string path = SqlitePath(meta_url);
  if (path.empty() || path == ":memory:") return std::unique_ptr<FileLock>();
  auto lock = FileLock::TryAcquire(path + ".node-lock");
  if (!lock.ok() && lock.status().code() == StatusCode::kFailedPrecondition) {
    return FailedPreconditionError(
        "another node serves the SQLite metadata database " + path + " (" +
        lock.status().message() + "); SQLite serves one node: run several nodes on PostgreSQL"
        " (--meta-url postgres://...)");
  }
  return lock;
}

}  // namespace

bool IsClusterDatabase(const std::string& meta_url) {
  return meta_url.rfind("postgres://", 0) == 0 || meta_url.rfind("postgresql://", 0) == 0;
}

Result<std::unique_ptr<Node>> Node::Start(const config::ServeConfig& config) {
  auto node = std::unique_ptr<Node>(new Node(config));
  MINK_RETURN_IF_ERROR(PrepareMetaDirectory(config.meta_url));
  MINK_ASSIGN_OR_RETURN(node->sqlite_lock_, LockSqliteDatabase(config.meta_url));
  metadata::MetadataOptions meta_options;
  meta_options.node_label = "node-" + std::to_string(config.node_id);
  MINK_ASSIGN_OR_RETURN(node->meta_, metadata::MetadataLog::Open(config.meta_url, meta_options));
  MINK_ASSIGN_OR_RETURN(node->identity_,
                        storage::StreamStore::RegisterNode(node->meta_.get(), config.node_id));

  MINK_ASSIGN_OR_RETURN(auto data_uri, object_store::StorageUri::Parse(config.storage_uri));
  object_store::StorageUri wal_uri = data_uri.WalDefault();
  if (!config.wal_uri.empty()) {
    MINK_ASSIGN_OR_RETURN(wal_uri, object_store::StorageUri::Parse(config.wal_uri));
  }
  if (wal_uri.bucket_id == data_uri.bucket_id) {
    return InvalidArgumentError("--wal-uri needs a bucket id different from --storage-uri's");
  }
  metrics::SetEnabled(config.metrics);
  storage::StoreSet stores;
  MINK_ASSIGN_OR_RETURN(stores.data, object_store::OpenObjectStore(data_uri));
  MINK_ASSIGN_OR_RETURN(stores.wal, object_store::OpenObjectStore(wal_uri));
  stores.data = std::make_shared<object_store::MeteredStore>(std::move(stores.data), "data");
  stores.wal = std::make_shared<object_store::MeteredStore>(std::move(stores.wal), "wal");
  stores.data_bucket_id = data_uri.bucket_id;
  stores.wal_bucket_id = wal_uri.bucket_id;

  storage::StorageOptions options;
  options.wal_flush_interval = config.wal_flush_interval;
  options.wal_max_bytes = config.wal_max_bytes;
  options.wal_eager_uploads = config.wal_eager_uploads;
  options.wal_seal_bytes = config.wal_seal_bytes;
  options.wal_max_inflight_uploads = config.wal_max_inflight;
  options.retention = config.retention;
  options.retention_interval = config.retention_check_interval;
  options.compaction_interval = config.compaction_interval;
  options.delete_grace = config.gc_delete_grace;
  options.orphan_grace = config.gc_orphan_grace;
  options.block_cache_bytes = config.block_cache_bytes;
  MINK_ASSIGN_OR_RETURN(node->storage_, storage::StreamStore::Open(options, node->meta_.get(),
                                                                   stores, node->identity_));
  node->membership_ = std::make_unique<cluster::Membership>(node->meta_.get(), config.session_timeout);
  const bool cluster = IsClusterDatabase(config.meta_url);
  if (cluster) {
    // A node out of touch with the metadata database stops acknowledging before the others
    // take its buckets over.
    node->touch_ = std::make_unique<cluster::DatabaseTouch>(config.session_timeout);
    node->storage_->SetFence([touch = node->touch_.get()] { return touch->OutOfTouch(); });
    node->meta_->SetFence([touch = node->touch_.get()] { return touch->OutOfTouch(); });
  }
  // How this node calls the others (and the console's mink-query): with a token of its own when
  // clients authenticate; over TLS trusting --tls-ca, showing its certificate when asked.
  flight::FlightClientOptions node_calls;
  // TLS: one certificate for every listener, checked before anything listens.
  const tls::ServerFiles tls{config.tls_cert, config.tls_key, config.tls_ca, config.tls_client_ca};
  MINK_RETURN_IF_ERROR(tls::Check(tls));
  if (!tls.ca.empty()) {
    MINK_ASSIGN_OR_RETURN(node_calls.tls_roots_pem, tls::ReadPem(tls.ca, "--tls-ca"));
  }
  if (tls.enabled()) {  // read once: a renewed certificate is shown to others after a restart
    MINK_ASSIGN_OR_RETURN(node_calls.tls_cert_pem, tls::ReadPem(tls.cert, "--tls-cert"));
    MINK_ASSIGN_OR_RETURN(node_calls.tls_key_pem, tls::ReadPem(tls.key, "--tls-key"));
  }
  if (config.auth_enabled) {
    node->users_ = std::make_unique<auth::UserDirectory>(node->meta_.get());
    const auth::TokenSecrets secrets{config.auth_token_secret, config.auth_token_secret_file,
                                     config.auth_previous_token_secret, config.auth_previous_token_secret_file};
    MINK_ASSIGN_OR_RETURN(auth::TokenSigner signer, auth::SignerFromSecrets(secrets, cluster));
    node->authenticator_ = std::make_unique<auth::Authenticator>(node->users_.get(), std::move(signer));
    std::set<std::string> super_users;
    for (const std::string& user : Split(config.auth_super_users, ',')) {
      if (std::string name(Trim(user)); !name.empty()) super_users.insert(name);
    }
    MINK_RETURN_IF_ERROR(BootstrapUser(config, node->users_.get()));
    if (!config.auth_bootstrap_user.empty()) super_users.insert(config.auth_bootstrap_user);
    node->access_ = std::make_unique<auth::AccessControl>(node->meta_.get(), std::move(super_users));
    node_calls.headers.emplace_back("authorization", "Bearer " + node->authenticator_->IssueToken(
                                                               auth::NodePrincipal(config.node_id),
                                                               std::chrono::hours(24 * 365)));
  }
  if (cluster) {
    node->assignment_ = std::make_unique<table::CoordinatedAssignment>(node->identity_);
    node->forwarder_ =
        std::make_unique<FlightForwarder>(node->membership_.get(), std::chrono::seconds(30), node_calls);
  }
  table::TableOptions table_options;
  table_options.default_log_ttl = config.retention;
  table_options.kv_snapshot_records = config.kv_snapshot_records;
  table_options.kv_snapshot_interval = config.kv_snapshot_interval;
  table_options.kv_cache_dir = config.cache_dir;
  table_options.kv_memory_bytes = config.kv_memory_bytes;
  node->tables_ = std::make_unique<table::TableStore>(node->meta_.get(), node->storage_.get(),
                                                      table_options, node->assignment_.get(),
                                                      node->forwarder_.get());
  MINK_RETURN_IF_ERROR(node->tables_->Start());
  std::string advertise =
      config.advertise.empty() ? (tls.enabled() ? "grpc+tls://" : "grpc://") + config.listen : config.advertise;
  // Continuous SQL's statements: DuckDB reads their queries' shapes (one thread is plenty).
  sql::DatabaseOptions continuous_db;
  continuous_db.threads = 1;
  MINK_ASSIGN_OR_RETURN(node->continuous_db_, sql::Database::Open(continuous_db));
  // Callers' SQL runs here: no file, URL or extension, the configuration locked, memory bounded.
  sql::SqlLimits sql_limits;
  sql_limits.memory_bytes = config.sql_memory_bytes;
  sql_limits.threads = 1;
  sql_limits.time_zone = "UTC";
  MINK_RETURN_IF_ERROR(node->continuous_db_->LockDown(sql_limits));
  node->continuous_ = std::make_unique<stream::Catalog>(node->meta_.get(), node->tables_.get(), node->continuous_db_.get());
  node->flight_service_ = std::make_unique<flight::TableFlightService>(
      node->tables_.get(), advertise, node->membership_.get(), node->continuous_.get(), node->meta_.get(),
      node->access_.get());
  flight::FlightServerOptions flight_options;
  if (auth::Authenticator* a = node->authenticator_.get()) {
    flight_options.authenticate = [a](const std::string& header) { return a->Check(header); };
    flight_options.issue_token = [a](const std::string& user) { return a->IssueToken(user); };
  }
  if (tls.enabled()) {
    MINK_ASSIGN_OR_RETURN(node->flight_certificates_, tls::CertificateReloader::Open(tls));
    MINK_RETURN_IF_ERROR(node->flight_certificates_->StartMirror());
    flight_options.tls_cert_file = flight_options.tls_key_file = node->flight_certificates_->mirror_file();
    flight_options.tls_client_ca_file = node->flight_certificates_->mirror_client_ca();
  }
  MINK_ASSIGN_OR_RETURN(node->flight_, flight::FlightServer::Start(config.listen, node->flight_service_.get(),
                                                                   std::move(flight_options)));
  if (!config.kafka_listen.empty()) {
    // Clients connect to the advertised host:port (default: the listen address).
    std::string advertised = config.kafka_advertise.empty() ? config.kafka_listen : config.kafka_advertise;
    size_t colon = advertised.rfind(':');
    if (colon == std::string::npos) {
      return InvalidArgumentError("--kafka-advertise '" + advertised + "' needs host:port");
    }
    kafka::BrokerOptions bo;
    bo.node_id = config.node_id;
    bo.advertised_host = advertised.substr(0, colon);
    MINK_ASSIGN_OR_RETURN(int64_t port, ParseInt64(advertised.substr(colon + 1)));
    bo.advertised_port = static_cast<int32_t>(port);
    bo.default_partitions = config.default_partitions;
    bo.auto_create_topics = config.kafka_auto_create_topics;
    bo.max_message_bytes = config.kafka_max_message_bytes;
    kafka::GroupCoordinatorOptions go;
    if (cluster) {
      // Consumer groups are coordinated by the holder of their slot's lease (fenced commits).
      node->group_leases_ = std::make_unique<cluster::GroupLeases>(
          node->meta_.get(), node->membership_.get(),
          cluster::NodeProcess{config.node_id, node->identity_.node_epoch}, config.session_timeout);
      node->kafka_view_ = std::make_unique<KafkaClusterView>(
          node->meta_.get(), node->membership_.get(), node->group_leases_.get(),
          node->touch_.get(), config.node_id);
      bo.cluster = node->kafka_view_.get();
      go.fence_of = [view = node->kafka_view_.get()](const std::string& group_id) {
        return view->GroupFence(group_id);
      };
    }
    go.offsets = node->meta_->store()->group_offsets();
    go.partition_exists = [raw = node.get()](const std::string& topic, int32_t partition) {
      auto partitions = raw->broker_->topics().Partitions(topic);
      return partitions.ok() && partition >= 0 && partition < *partitions;
    };
    node->groups_ = std::make_unique<kafka::GroupCoordinator>(std::move(go));
    bo.access = node->access_.get();
    node->broker_ = std::make_unique<kafka::Broker>(bo, node->tables_.get(), node->groups_.get());
    kafka::KafkaServerOptions ko;
    ko.listen = config.kafka_listen;
    ko.max_frame_bytes = config.kafka_max_request_bytes;
    ko.users = node->users_.get();
    ko.tls = tls;
    MINK_ASSIGN_OR_RETURN(node->kafka_, kafka::KafkaServer::Start(ko, node->broker_.get()));
  }
  std::string kafka_advertise;
  if (!config.kafka_listen.empty()) {
    kafka_advertise = config.kafka_advertise.empty() ? config.kafka_listen : config.kafka_advertise;
  }
  node->coordinator_ = std::make_unique<cluster::Coordinator>(
      node->meta_.get(), cluster::NodeProcess{config.node_id, node->identity_.node_epoch},
      config.session_timeout);
  node->coordinator_->Start();
  // The lake: tiering runs on the coordinator (a node alone is its own).
  lake::LakeOptions lake;
  lake.catalog = config.lake_catalog;
  lake.catalog_uri = config.lake_uri;
  lake.catalog_token = config.lake_token;
  lake.catalog_credential = config.lake_credential;
  lake.warehouse_uri = config.lake_warehouse.empty() ? config.storage_uri : config.lake_warehouse;
  lake.work_dir = (std::filesystem::temp_directory_path() /
                   ("mink-lake-n" + std::to_string(config.node_id) + "-" +
                    std::to_string(::getpid())))
                      .string();
  lake.tiers = [coordinator = node->coordinator_.get()] { return coordinator->is_coordinator(); };
  lake.rest_listen = config.iceberg_rest_listen;
  lake.rest_tls = tls;
  lake.rest_access = {node->authenticator_.get(), node->access_.get()};
  MINK_ASSIGN_OR_RETURN(node->lake_, lake::Lake::Start(lake, node->meta_.get(), node->tables_.get()));
  // Continuous SQL: the pipelines of the streams and views whose output this node writes, and
  // the HTTP API.
  MINK_ASSIGN_OR_RETURN(node->pipeline_store_, object_store::OpenObjectStore(data_uri));
  node->pipeline_store_ = std::make_shared<object_store::MeteredStore>(std::move(node->pipeline_store_), "state");
  stream::PipelineContext pipelines;
  pipelines.meta = node->meta_.get();
  pipelines.tables = node->tables_.get();
  pipelines.store = node->pipeline_store_.get();
  pipelines.db = node->continuous_db_.get();
  pipelines.node_id = config.node_id;
  node->pipelines_ = std::make_unique<stream::PipelineRunner>(pipelines);
  node->pipelines_->Start();
  if (!config.http_listen.empty()) {
    node->sql_endpoint_ = std::make_unique<stream::SqlEndpoint>(
        node->continuous_.get(), node->meta_.get(), node->tables_.get(), node->continuous_db_.get(),
        sql::StatementTimeout{config.sql_timeout, "sql.timeout"});
    stream::SqlEndpoint* endpoint = node->sql_endpoint_.get();
    MetricSources sources;
    sources.node_id = config.node_id;
    sources.meta = node->meta_.get();
    sources.storage = node->storage_.get();
    sources.membership = node->membership_.get();
    sources.tables = node->tables_.get();
    sources.group_offsets = node->groups_ ? node->meta_->store()->group_offsets() : nullptr;
    OperationsEndpoint::Authenticate authenticate;
    OperationsEndpoint::Authorize authorize;
    if (auth::Authenticator* a = node->authenticator_.get()) {
      authenticate = [a](const std::string& header) { return a->Check(header); };
      authorize = [access = node->access_.get()](const std::string& user, const http::ServerRequest& r) {
        return CheckHttpAccess(*access, user, r);
      };
    }
    ConsoleSources console;
    console.tables = node->tables_.get();
    console.membership = node->membership_.get();
    console.group_offsets = sources.group_offsets;
    console.access = node->access_.get();
    console.query_address = config.console_query;
    console.query_options = node_calls;
    console.query_options.headers.clear();  // the console forwards each browser's own credentials
    node->console_ = std::make_unique<ConsoleEndpoint>(std::move(console));
    node->operations_ = std::make_unique<OperationsEndpoint>(
        sources, node->tables_.get(),
        [endpoint, console = node->console_.get()](const http::ServerRequest& r, const std::string& user) {
          if (auto page = console->Handle(r, user)) return std::move(*page);
          return endpoint->Handle(r);
        },
        authenticate, authorize);
    OperationsEndpoint* operations = node->operations_.get();
    MINK_ASSIGN_OR_RETURN(
        node->http_,
        http::ApiServer::Start(
            config.http_listen, [operations](const http::ServerRequest& r) { return operations->Handle(r); },
            [endpoint, authenticate, authorize](const http::ServerRequest& r, http::WebSocket& socket) {
              if (authenticate) {
                auto user = authenticate(r.Header("authorization"));
                if (!user.ok()) return socket.Close(1008, user.status().message());
                if (Status allowed = authorize(*user, r); !allowed.ok()) return socket.Close(1008, allowed.message());
              }
              endpoint->Subscribe(r, socket);
            },
            4, tls));
    MINK_LOG_INFO("node", "HTTP API listening on {}{}", config.http_listen, tls.enabled() ? " (TLS)" : "");
  }
  if (cluster) {
    // Garbage collection and the orphan sweep run once, on the coordinator.
    node->storage_->SetGarbageCollectionGate(
        [coordinator = node->coordinator_.get()] { return coordinator->is_coordinator(); });
    node->follower_ = std::make_unique<ClusterFollower>(
        node->meta_.get(), node->tables_.get(), node->membership_.get(), node->coordinator_.get(),
        node->identity_);
    node->follower_->Start();
  }
  if (node->group_leases_) node->group_leases_->Start();  // once the node heartbeats below
  node->heartbeater_ = std::make_unique<cluster::Heartbeater>(
      node->meta_.get(),
      metadata::Heartbeat{config.node_id, node->identity_.node_epoch, advertise, 0, kafka_advertise},
      node->touch_.get());
  MINK_LOG_INFO("node", "node={} epoch={} started: metadata={} storage={} wal={}", config.node_id,
                node->identity_.node_epoch, node->meta_->store()->Describe(),
                data_uri.ToString(), wal_uri.ToString());
  MINK_LOG_INFO("node", "Arrow Flight listening on {} (advertised as {})", node->flight_->address(),
                advertise);
  return node;
}

Node::~Node() { Stop(); }

void Node::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  // Each step, and the ones that are slow (a stop that hangs says where).
  auto step = [](const char* what, const std::function<void()>& run) {
    const auto started = std::chrono::steady_clock::now();
    run();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (took > std::chrono::seconds(1)) MINK_LOG_INFO("node", "stopping: {} took {} ms", what, took.count());
  };
  // No compaction or GC while leaving: a pass over a large backlog would hold the stop.
  if (storage_) step("maintenance", [&] { storage_->StopMaintenance(); });
  if (follower_) {
    // A graceful stop hands this node's buckets to the others before it goes.
    step("leaving the cluster", [&] {
      Status left = follower_->Leave(2 * config_.session_timeout);
      if (!left.ok()) MINK_LOG_WARN("node", "leaving the cluster: {}", left.ToString());
      follower_->Stop();
    });
  }
  if (group_leases_) step("consumer groups", [&] { group_leases_->Stop(); });  // handed on at once
  if (heartbeater_) heartbeater_->Stop();
  if (http_) step("http", [&] { http_->Stop(); });
  if (pipelines_) step("pipelines", [&] { pipelines_->Stop(); });
  if (lake_) step("lake", [&] { lake_->Stop(); });
  if (coordinator_) coordinator_->Stop();
  if (flight_) flight_->Shutdown(std::chrono::milliseconds(2000));
  if (broker_) broker_->BeginStop();
  if (kafka_) step("kafka", [&] { kafka_->Stop(); });
  if (broker_) step("broker", [&] { broker_->Stop(); });
  if (groups_) step("group coordinator", [&] { groups_->Stop(); });
  if (tables_) step("tables", [&] { tables_->Stop(); });
  if (storage_) step("storage", [&] { storage_->Stop(); });
  MINK_LOG_INFO("node", "node={} stopped", config_.node_id);
}

}  // namespace mink::node
