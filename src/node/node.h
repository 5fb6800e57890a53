#pragma once
// Node: one `mink serve` process. Start() builds the services in dependency order (metadata log,
// node registration, object stores, storage, heartbeats); Stop() takes them down in reverse.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "auth/access_control.h"
#include "base/file_lock.h"
#include "auth/authenticator.h"
#include "auth/user_directory.h"
#include "cluster/coordinator.h"
#include "cluster/group_leases.h"
#include "cluster/membership.h"
#include "node/cluster_follower.h"
#include "node/console_endpoint.h"
#include "node/kafka_cluster_view.h"
#include "node/flight_forwarder.h"
#include "node/operations_endpoint.h"
#include "sql/database.h"
#include "http/api_server.h"
#include "stream/catalog.h"
#include "stream/runner.h"
#include "stream/sql_endpoint.h"
#include "config/serve_config.h"
#include "flight/server/flight_server.h"
#include "flight/service/table_flight_service.h"
#include "kafka/server/broker.h"
#include "kafka/server/group_coordinator.h"
#include "kafka/server/kafka_server.h"
#include "lake/lake.h"
#include "metadata/metadata_log.h"
#include "tls/certificate_reloader.h"
#include "storage/stream_store.h"
#include "table/table_store.h"

namespace mink::node {

// Whether the metadata database is one a cluster can share (PostgreSQL). On SQLite a node is
// alone: it serves every bucket itself.
bool IsClusterDatabase(const std::string& meta_url);

class Node {
 public:
  static Result<std::unique_ptr<Node>> Start(const config::ServeConfig& config);
  ~Node();
  void Stop();

  storage::StreamStore* storage() { return storage_.get(); }
  metadata::MetadataLog* meta() { return meta_.get(); }
  table::TableStore* tables() { return tables_.get(); }
  lake::Lake* lake() { return lake_.get(); }
  // The Flight port actually bound (useful with --listen host:0).
  int flight_port() const { return flight_ ? flight_->port() : 0; }
  int kafka_port() const { return kafka_ ? kafka_->port() : 0; }
  int http_port() const { return http_ ? http_->port() : 0; }
  stream::PipelineRunner* pipelines() { return pipelines_.get(); }

 private:
  explicit Node(config::ServeConfig config) : config_(std::move(config)) {}

  const config::ServeConfig config_;
  std::unique_ptr<FileLock> sqlite_lock_;  // alone on SQLite; first in, last out
  std::unique_ptr<metadata::MetadataLog> meta_;
  storage::NodeIdentity identity_;
  std::unique_ptr<storage::StreamStore> storage_;
  std::unique_ptr<table::CoordinatedAssignment> assignment_;  // a cluster's; null alone
  std::unique_ptr<FlightForwarder> forwarder_;           // a cluster's; null alone
  std::unique_ptr<table::TableStore> tables_;
  std::unique_ptr<lake::Lake> lake_;  // after tables_: it reads and tiers them
  std::unique_ptr<cluster::Membership> membership_;
  std::unique_ptr<cluster::DatabaseTouch> touch_;  // a cluster's: when it last reached the database
  std::unique_ptr<sql::Database> continuous_db_;  // before continuous_: it parses with it
  std::unique_ptr<stream::Catalog> continuous_;   // before flight_service_: it serves it
  std::shared_ptr<object_store::ObjectStore> pipeline_store_;  // the pipelines' state
  std::unique_ptr<stream::PipelineRunner> pipelines_;
  std::unique_ptr<stream::SqlEndpoint> sql_endpoint_;
  std::unique_ptr<OperationsEndpoint> operations_;  // /metrics, /health, /ready, then sql_endpoint_
  std::unique_ptr<http::ApiServer> http_;  // serves operations_ and sql_endpoint_ (GET /ws/<name>)
  std::unique_ptr<auth::UserDirectory> users_;  // with authentication on: who may connect
  std::unique_ptr<auth::Authenticator> authenticator_;  // and how Flight calls prove it
  std::unique_ptr<auth::AccessControl> access_;          // and what each user may do
  std::unique_ptr<ConsoleEndpoint> console_;  // the browser console on the HTTP listener
  std::unique_ptr<flight::TableFlightService> flight_service_;
  // With TLS: a copy of the last certificate that loaded, which gRPC watches (before flight_).
  std::shared_ptr<tls::CertificateReloader> flight_certificates_;
  std::unique_ptr<flight::FlightServer> flight_;
  std::unique_ptr<cluster::GroupLeases> group_leases_;  // a cluster's; before kafka_view_
  std::unique_ptr<KafkaClusterView> kafka_view_;     // a cluster's; before broker_
  std::unique_ptr<kafka::GroupCoordinator> groups_;  // before broker_: the broker uses it
  std::unique_ptr<kafka::Broker> broker_;
  std::unique_ptr<kafka::KafkaServer> kafka_;

  std::unique_ptr<cluster::Coordinator> coordinator_;  // every node competes for the lease
  std::unique_ptr<cluster::Heartbeater> heartbeater_;  // last: it announces a node that serves
  std::unique_ptr<ClusterFollower> follower_;          // a cluster's: follows the assignment

  std::mutex mutex_;
  bool stopping_ = false;
};

}  // namespace mink::node
