#pragma once
// The configuration of `mink serve`. Every setting has a flag (--wal-flush-interval), an
// environment variable (MINK_WAL_FLUSH_INTERVAL) and a key in the optional --config TOML file
// (flush-interval in section [wal]); flags override the environment, the environment overrides
// the file, the file overrides the default.

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace mink::config {

struct ServeConfig {
  int32_t node_id = 1;
  std::string listen = "127.0.0.1:9123";  // Arrow Flight
  std::string advertise;                  // handed to clients; default grpc://<listen>
  std::string kafka_listen;               // off unless set
  std::string kafka_advertise;            // default <kafka_listen>
  std::string meta_url = "sqlite:./data/meta.db";
  std::string storage_uri = "-2@file://./data/objects";
  std::string wal_uri;                    // default: storage_uri with bucket id minus one
  std::string log_level = "info";
  std::string log_format = "text";        // text or json
  bool metrics = true;                    // record metrics (GET /metrics on the HTTP listener)
  // Clients authenticate (docs/operations.md, Security) as `mink user`'s users: Kafka with SASL,
  // Flight and HTTP with an authorization header.
  bool auth_enabled = false;
  // Users allowed everything whatever the access control lists say, comma separated.
  std::string auth_super_users;
  // The first user, made at start when it does not exist (a super user), with its password from
  // a file or the environment (MINK_AUTH_BOOTSTRAP_PASSWORD), never a flag others can see.
  std::string auth_bootstrap_user;
  std::string auth_bootstrap_password_file;
  std::string auth_bootstrap_password;
  // The secret tokens are signed with (auth::SignerFromSecrets), and the one before a rotation:
  // from files or the environment, the same on every node; never in the metadata log.
  std::string auth_token_secret_file;
  std::string auth_token_secret;
  std::string auth_previous_token_secret_file;
  std::string auth_previous_token_secret;
  // TLS on every listener (docs/operations.md, TLS): PEM files of the certificate chain and its
  // key; the certificates a node trusts when it calls another ("": the system's).
  std::string tls_cert;
  std::string tls_key;
  std::string tls_ca;
  std::string tls_client_ca;
  // The console's SQL box runs on mink-query's Flight SQL service here ("": no SQL box).
  std::string console_query;

  std::chrono::milliseconds wal_flush_interval{10};
  uint64_t wal_max_bytes = 8 << 20;
  int wal_max_inflight = 4;
  int wal_eager_uploads = 1;  // seal a small object at once while fewer uploads than this run
  uint64_t wal_seal_bytes = 512 << 10;  // seal at once at this size when an upload slot is free
  std::chrono::milliseconds retention{7LL * 24 * 3600 * 1000};
  std::chrono::milliseconds retention_check_interval{60'000};
  // A node is live while its heartbeat is younger than this (Kafka's brokers: 9 s).
  std::chrono::milliseconds session_timeout{9'000};
  std::chrono::milliseconds compaction_interval{30'000};
  int64_t kv_snapshot_records = 100'000;
  // The working copies of primary-key buckets (never durable: deleting it loses nothing) and
  // the memory all of them share (RocksDB's block cache and memtables).
  std::string cache_dir = "./data/cache";
  uint64_t kv_memory_bytes = 256ULL << 20;
  std::chrono::milliseconds kv_snapshot_interval{10 * 60'000};
  std::chrono::milliseconds gc_delete_grace{5 * 60'000};
  std::chrono::milliseconds gc_orphan_grace{60 * 60'000};
  uint64_t block_cache_bytes = 64 << 20;
  int default_partitions = 1;  // buckets of a Kafka topic created on first use
  bool kafka_auto_create_topics = true;            // Kafka's auto.create.topics.enable
  uint64_t kafka_max_message_bytes = 1'048'588;    // Kafka's message.max.bytes
  uint64_t kafka_max_request_bytes = 104'857'600;  // Kafka's socket.request.max.bytes
  // The lake (docs/lake.md): its catalog and the object store of its warehouse ("": the
  // storage URI's store, under lake/).
  std::string lake_catalog = "builtin";
  std::string lake_warehouse;
  std::string lake_uri;    // lake.catalog = rest: the Iceberg REST catalog
  std::string lake_token;
  std::string lake_credential;  // <client id>:<client secret> for the catalog's token endpoint
  // The built-in catalog over the Iceberg REST API (docs/iceberg-rest.md): where ("": off). Its
  // callers are the node's users (auth.enabled).
  std::string iceberg_rest_listen;
  // The node's HTTP API: GET /metrics, /health and /ready (docs/operations.md), POST
  // /api/v1/sql (continuous SQL and queries over streams and views; docs/streaming-sql.md):
  // where ("": off).
  std::string http_listen;
  // What SQL from callers (POST /api/v1/sql, continuous SQL) may spend on the node's DuckDB:
  // its memory, and each query's time.
  uint64_t sql_memory_bytes = 1ULL << 30;
  std::chrono::milliseconds sql_timeout{60'000};
};

// One setting: its TOML key ("wal.flush-interval"), from which the flag and the environment
// variable names are derived, its help text and its default as text.
struct SettingInfo {
  std::string key;
  std::string help;
  std::string default_text;
  std::string Flag() const;  // --wal-flush-interval
  std::string Env() const;   // MINK_WAL_FLUSH_INTERVAL
};
const std::vector<SettingInfo>& ServeSettings();

// Where each value came from, for start-up logs and error messages.
struct ConfigSources {
  std::map<std::string, std::string> values;   // key -> text, after layering
  std::map<std::string, std::string> origins;  // key -> "flag", "env MINK_X", "file F", "default"
};

// Layers the values. `flags` holds the settings given on the command line (by key); `env`
// looks up environment variables; `config_file` may be empty.
Result<ServeConfig> LoadServeConfig(const std::map<std::string, std::string>& flags,
                                    const std::string& config_file,
                                    const std::map<std::string, std::string>& env,
                                    ConfigSources* sources = nullptr);

// The process environment's MINK_* variables.
std::map<std::string, std::string> MinkEnvironment();

}  // namespace mink::config
