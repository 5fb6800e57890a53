#include "config/serve_config.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <toml++/toml.h>

#include "base/strings.h"

extern char** environ;

namespace mink::config {
namespace {

using Setter = std::function<Status(ServeConfig*, const std::string&)>;

struct Setting {
  SettingInfo info;
  Setter set;
};

Setter Text(std::string ServeConfig::*field) {
  return [field](ServeConfig* c, const std::string& v) {
    c->*field = v;
    return Status::Ok();
  };
}

Setter Duration(std::chrono::milliseconds ServeConfig::*field) {
  return [field](ServeConfig* c, const std::string& v) -> Status {
    MINK_ASSIGN_OR_RETURN(c->*field, ParseDuration(v));
    return Status::Ok();
  };
}

Setter Bytes(uint64_t ServeConfig::*field) {
  return [field](ServeConfig* c, const std::string& v) -> Status {
    MINK_ASSIGN_OR_RETURN(c->*field, ParseByteSize(v));
    return Status::Ok();
  };
}

Setter Boolean(bool ServeConfig::*field) {
  return [field](ServeConfig* c, const std::string& v) -> Status {
    if (v == "true" || v == "1") {
      c->*field = true;
    } else if (v == "false" || v == "0") {
      c->*field = false;
    } else {
      return InvalidArgumentError("'" + v + "' is not true, false, 1 or 0");
    }
    return Status::Ok();
  };
}

template <typename Int>
Setter Integer(Int ServeConfig::*field, int64_t min, int64_t max) {
  return [field, min, max](ServeConfig* c, const std::string& v) -> Status {
    MINK_ASSIGN_OR_RETURN(int64_t n, ParseInt64(v));
    if (n < min || n > max) {
      return InvalidArgumentError("'" + v + "' is outside " + std::to_string(min) + ".." +
                                  std::to_string(max));
    }
    c->*field = static_cast<Int>(n);
    return Status::Ok();
  };
}

const std::vector<Setting>& Settings() {
  static const std::vector<Setting> settings = {
      {{"node-id", "This node's id in the cluster", "1"},
       Integer(&ServeConfig::node_id, 1, 1'000'000)},
      {{"listen", "Arrow Flight listen address", "127.0.0.1:9123"}, Text(&ServeConfig::listen)},
      {{"advertise", "Flight address handed to clients", "grpc://<listen>"},
       Text(&ServeConfig::advertise)},
      {{"kafka-listen", "Kafka listen address (off unless set)", ""},
       Text(&ServeConfig::kafka_listen)},
      {{"kafka-advertise", "Kafka address handed to clients", "<kafka-listen>"},
       Text(&ServeConfig::kafka_advertise)},
      {{"meta-url", "Metadata database: sqlite:<path> or postgres://user:pass@host:port/db",
        "sqlite:./data/meta.db"},
       Text(&ServeConfig::meta_url)},
      {{"storage-uri", "Object store for stream data: <bucket-id>@file://<dir> or "
                       "<bucket-id>@s3://<bucket>?region=..&endpoint=..&path-style=true",
        "-2@file://./data/objects"},
       Text(&ServeConfig::storage_uri)},
      {{"wal-uri", "Object store for WAL objects", "storage URI with bucket id minus one"},
       Text(&ServeConfig::wal_uri)},
      {{"log-level", "debug, info, warn or error", "info"}, Text(&ServeConfig::log_level)},
      {{"log-format", "text, or json: one object per line (time, level, component, message)", "text"},
       Text(&ServeConfig::log_format)},
      {{"metrics",
        "Record metrics, served as GET /metrics on the HTTP listener (false: every update is skipped)", "true"},
       Boolean(&ServeConfig::metrics)},
      {{"auth.enabled",
        "Clients must authenticate as a user `mink user create` made: Kafka with SASL (PLAIN, SCRAM-SHA-256, "
        "SCRAM-SHA-512), Flight and HTTP with an authorization header (Basic, or a Bearer token from Flight's "
        "Handshake); off, anyone who reaches a listener is let in",
        "false"},
       Boolean(&ServeConfig::auth_enabled)},
      {{"auth.super-users",
        "With authentication on, these users (comma separated) may do anything; everyone else only what "
        "`mink acl grant` allows them",
        ""},
       Text(&ServeConfig::auth_super_users)},
      {{"auth.bootstrap-user",
        "With authentication on, the first user: made at start unless it exists, and a super user. "
        "Its password comes from auth.bootstrap-password-file or MINK_AUTH_BOOTSTRAP_PASSWORD",
        "none: nobody can connect until a user exists"},
       Text(&ServeConfig::auth_bootstrap_user)},
      {{"auth.bootstrap-password-file", "A file holding the bootstrap user's password (one line)", ""},
       Text(&ServeConfig::auth_bootstrap_password_file)},
      {{"auth.bootstrap-password",
        "The bootstrap user's password; give it in the environment (MINK_AUTH_BOOTSTRAP_PASSWORD) or "
        "the TOML file, not as a flag others can see in the process list",
        ""},
       Text(&ServeConfig::auth_bootstrap_password)},
      {{"auth.token-secret-file",
        "A file whose first line is the secret (32 bytes or more) tokens are signed with; every node of a "
        "cluster needs the same one. None on a node alone: a random key, good until the node stops",
        ""},
       Text(&ServeConfig::auth_token_secret_file)},
      {{"auth.token-secret",
        "The token secret itself; give it in the environment (MINK_AUTH_TOKEN_SECRET), not as a flag", ""},
       Text(&ServeConfig::auth_token_secret)},
      {{"auth.previous-token-secret-file",
        "During a rotation, the secret before auth.token-secret-file: tokens it signed stay valid until they "
        "expire (an hour)",
        ""},
       Text(&ServeConfig::auth_previous_token_secret_file)},
      {{"auth.previous-token-secret",
        "The previous token secret itself (MINK_AUTH_PREVIOUS_TOKEN_SECRET)", ""},
       Text(&ServeConfig::auth_previous_token_secret)},
      {{"tls.cert",
        "PEM file of the certificate (then its intermediates) every listener serves TLS with: Flight "
        "(grpc+tls://), Kafka (SSL, SASL_SSL), HTTP (https, wss); none: plain TCP",
        ""},
       Text(&ServeConfig::tls_cert)},
      {{"tls.key", "PEM file of the private key of --tls-cert", ""}, Text(&ServeConfig::tls_key)},
      {{"tls.ca",
        "PEM file of the certificates a node trusts when it calls another node over TLS (a self-signed "
        "--tls-cert: the same file)",
        "the system's"},
       Text(&ServeConfig::tls_ca)},
      {{"tls.client-ca",
        "PEM file of the certificate authorities whose client certificates every TLS listener accepts: "
        "set, a client without such a certificate is refused in the handshake (mutual TLS); nodes "
        "present their --tls-cert to each other",
        "no client certificate asked"},
       Text(&ServeConfig::tls_client_ca)},
      {{"console.query",
        "mink-query's Flight SQL address (grpc://host:port) the console's SQL box (GET /console on the HTTP "
        "listener) runs statements on",
        "no SQL box"},
       Text(&ServeConfig::console_query)},
      {{"session-timeout",
        "A node is live while its last heartbeat (one a second) is younger than this; near "
        "Kafka's broker session timeout, so clients' retries outlast a node's expiry",
        "9s"},
       Duration(&ServeConfig::session_timeout)},
      {{"wal.flush-interval", "Seal a WAL object at least this often", "10ms"},
       Duration(&ServeConfig::wal_flush_interval)},
      {{"wal.max-bytes", "Seal a WAL object when it reaches this size", "8MiB"},
       Bytes(&ServeConfig::wal_max_bytes)},
      {{"wal.max-inflight", "WAL uploads in flight at once", "4"},
       Integer(&ServeConfig::wal_max_inflight, 1, 256)},
      {{"wal.eager-uploads",
        "Seal a small WAL object (under 256 KiB) at once, before the flush interval, while "
        "fewer than this many uploads run (0 = never): lower latency at low rates",
        "1"},
       Integer(&ServeConfig::wal_eager_uploads, 0, 256)},
      {{"wal.seal-bytes",
        "Seal a WAL object at once, before the flush interval, when it holds this much and an "
        "upload slot is free (0 = never): lower latency under load",
        "512KiB"},
       Bytes(&ServeConfig::wal_seal_bytes)},
      {{"retention", "Log TTL of tables that set no table.log.ttl (0 = forever)", "7d"},
       Duration(&ServeConfig::retention)},
      {{"retention-check-interval", "How often expired stream data is looked for and trimmed",
        "1m"},
       Duration(&ServeConfig::retention_check_interval)},
      {{"compaction.interval", "How often WAL objects are compacted into stream objects", "30s"},
       Duration(&ServeConfig::compaction_interval)},
      {{"kv.snapshot-records",
        "A bucket's snapshot (a primary-key bucket's state and every bucket's idempotent "
        "writers) is written after this many records since the last",
        "100000"},
       Integer(&ServeConfig::kv_snapshot_records, 1, 1'000'000'000)},
      {{"kv.snapshot-interval", "Every bucket that changed is snapshotted at least this often",
        "10m"},
       Duration(&ServeConfig::kv_snapshot_interval)},
      {{"cache-dir",
        "Where primary-key buckets keep their working copies (RocksDB) and the snapshot files "
        "they fetched; never the only copy of anything, deleting it costs only time",
        "./data/cache"},
       Text(&ServeConfig::cache_dir)},
      {{"kv.memory",
        "Memory the working copies of every primary-key bucket share (block cache and "
        "memtables); their state may be many times larger",
        "256MiB"},
       Bytes(&ServeConfig::kv_memory_bytes)},
      {{"gc.delete-grace", "Replaced objects are deleted this long after", "5m"},
       Duration(&ServeConfig::gc_delete_grace)},
      {{"gc.orphan-grace", "Never-committed objects are deleted once this old", "1h"},
       Duration(&ServeConfig::gc_orphan_grace)},
      {{"cache.block-bytes", "Read cache size", "64MiB"}, Bytes(&ServeConfig::block_cache_bytes)},
      {{"kafka.default-partitions", "Partitions of a Kafka topic created on first use", "1"},
       Integer(&ServeConfig::default_partitions, 1, 10'000)},
      {{"kafka.auto-create-topics",
        "Create a topic when a client produces to it or asks for its metadata with "
        "auto-creation (Kafka's auto.create.topics.enable)",
        "true"},
       Boolean(&ServeConfig::kafka_auto_create_topics)},
      {{"kafka.max-message-bytes",
        "Largest record batch a producer may send; larger ones get MESSAGE_TOO_LARGE (Kafka's "
        "message.max.bytes)",
        "1048588"},
       Bytes(&ServeConfig::kafka_max_message_bytes)},
      {{"kafka.max-request-bytes",
        "Largest Kafka request; a larger one closes its connection (Kafka's "
        "socket.request.max.bytes)",
        "100MiB"},
       Bytes(&ServeConfig::kafka_max_request_bytes)},
      {{"lake.catalog",
        "The lake's Iceberg catalog: builtin (in the metadata database) or rest (an Iceberg REST "
        "catalog at lake.uri)",
        "builtin"},
       Text(&ServeConfig::lake_catalog)},
      {{"lake.uri", "The Iceberg REST catalog's URI, with lake.catalog = rest", ""},
       Text(&ServeConfig::lake_uri)},
      {{"lake.token", "The bearer token for the Iceberg REST catalog (none unless set)", ""},
       Text(&ServeConfig::lake_token)},
      {{"lake.credential",
        "<client id>:<client secret> for the Iceberg REST catalog's OAuth2 token endpoint (a user and "
        "password of another Mink cluster): tokens are fetched and renewed from it (none unless set)",
        ""},
       Text(&ServeConfig::lake_credential)},
      {{"lake.warehouse",
        "Object store of the lake's files, as --storage-uri takes it (tables under lake/)",
        "the storage URI's store"},
       Text(&ServeConfig::lake_warehouse)},
      {{"sql.memory-limit",
        "Memory the node's DuckDB may use for SQL from callers (queries over streams and views, "
        "continuous SQL); a query needing more fails",
        "1GiB"},
       Bytes(&ServeConfig::sql_memory_bytes)},
      {{"sql.timeout", "A query of POST /api/v1/sql running longer than this is stopped", "60s"},
       Duration(&ServeConfig::sql_timeout)},
      {{"iceberg-rest.listen",
        "Serve the lake's built-in catalog over the Iceberg REST API on this host:port (off "
        "unless set): any Iceberg engine can then read the lake and keep tables of its own in it",
        ""},
       Text(&ServeConfig::iceberg_rest_listen)},
      {{"http.listen",
        "Serve the HTTP API on this host:port (off unless set, so that nodes on one host do not "
        "contend for a port): GET /metrics (Prometheus), /health and /ready for orchestrators, "
        "POST /api/v1/sql runs continuous SQL statements and queries over streams and materialized views",
        ""},
       Text(&ServeConfig::http_listen)},
  };
  return settings;
}

// Flattens a TOML table into "section.key" -> text.
Status Flatten(const toml::table& table, const std::string& prefix,
               std::map<std::string, std::string>* out, const std::string& file) {
  for (const auto& [k, node] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = node.as_table()) {
      MINK_RETURN_IF_ERROR(Flatten(*sub, key, out, file));
    } else if (const auto* s = node.as_string()) {
      (*out)[key] = s->get();
    } else if (const auto* i = node.as_integer()) {
      (*out)[key] = std::to_string(i->get());
    } else if (const auto* b = node.as_boolean()) {
      (*out)[key] = b->get() ? "true" : "false";
    } else {
      return InvalidArgumentError("config file " + file + ": key '" + key +
                                  "' must be a string, an integer or a boolean");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string SettingInfo::Flag() const {
  std::string flag = "--" + key;
  std::replace(flag.begin(), flag.end(), '.', '-');
  return flag;
}

std::string SettingInfo::Env() const {
  std::string env = "MINK_";
  for (char c : key) env.push_back(c == '.' || c == '-' ? '_' : static_cast<char>(std::toupper(c)));
  return env;
}

const std::vector<SettingInfo>& ServeSettings() {
  static const std::vector<SettingInfo> infos = [] {
    std::vector<SettingInfo> v;
    for (const auto& s : Settings()) v.push_back(s.info);
    return v;
  }();
  return infos;
}

std::map<std::string, std::string> MinkEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    if (entry.rfind("MINK_", 0) != 0) continue;
    size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  return env;
}

Result<ServeConfig> LoadServeConfig(const std::map<std::string, std::string>& flags,
                                    const std::string& config_file,
                                    const std::map<std::string, std::string>& env,
                                    ConfigSources* sources) {
  std::map<std::string, std::string> file_values;
  if (!config_file.empty()) {
    try {
      toml::table table = toml::parse_file(config_file);
      MINK_RETURN_IF_ERROR(Flatten(table, "", &file_values, config_file));
    } catch (const toml::parse_error& e) {
      return InvalidArgumentError("config file " + config_file + ": " + std::string(e.description()) +
                                  " at line " + std::to_string(e.source().begin.line));
    }
    for (const auto& [key, value] : file_values) {
      bool known = std::any_of(Settings().begin(), Settings().end(),
                               [&](const Setting& s) { return s.info.key == key; });
      if (!known) return InvalidArgumentError("config file " + config_file + ": unknown key '" + key + "'");
    }
  }
  ServeConfig config;
  ConfigSources local;
  ConfigSources* out = sources ? sources : &local;
  for (const Setting& s : Settings()) {
    std::string value, origin;
    if (auto f = flags.find(s.info.key); f != flags.end()) {
      value = f->second;
      origin = "flag " + s.info.Flag();
    } else if (auto e = env.find(s.info.Env()); e != env.end()) {
      value = e->second;
      origin = "environment " + s.info.Env();
    } else if (auto c = file_values.find(s.info.key); c != file_values.end()) {
      value = c->second;
      origin = "config file " + config_file + " key " + s.info.key;
    } else {
      continue;  // the default in ServeConfig
    }
    Status set = s.set(&config, value);
    if (!set.ok()) return InvalidArgumentError(origin + ": " + set.message());
    out->values[s.info.key] = value;
    out->origins[s.info.key] = origin;
  }
  if (config.advertise.empty()) config.advertise = "grpc://" + config.listen;
  if (config.kafka_advertise.empty()) config.kafka_advertise = config.kafka_listen;
  return config;
}

}  // namespace mink::config
