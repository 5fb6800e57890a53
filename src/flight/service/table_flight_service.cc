#include "flight/service/table_flight_service.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "arrow_format/ipc.h"
#include "base/clock.h"
#include "flight/service/action_access.h"
#include "flight/service/continuous_action.h"
#include "flight/service/request_json.h"
#include "flight/service/user_actions.h"
#include "table/arrow_rows.h"

namespace mink::flight {

using nlohmann::json;

namespace {

std::string EngineName(table::MergeEngineKind k) {
  switch (k) {
    case table::MergeEngineKind::kDefault: return "default";
    case table::MergeEngineKind::kFirstRow: return "first_row";
    case table::MergeEngineKind::kVersioned: return "versioned";
    case table::MergeEngineKind::kAggregation: return "aggregation";
  }
  return "default";
}

json Describe(const table::TableInfo& info) {
  const table::TableDescriptor& d = info.descriptor;
  json columns = json::array();
  for (const auto& c : d.schema.columns) {
    columns.push_back(
        {{"name", c.name}, {"type", c.type.ToString()}, {"not_null", c.not_null}, {"id", c.id}});
  }
  json partitions = json::array();
  for (const auto& [name, id] : info.partitions) partitions.push_back({{"name", name}, {"id", id}});
  return {{"table", info.name},
          {"columns", columns},
          {"primary_key", d.primary_key},
          {"partition_keys", d.partition_keys},
          {"bucket_keys", d.bucket_keys},
          {"bucket_count", d.bucket_count},
          {"bucket_function", std::string(table::BucketFunctionName(d.bucket_function))},
          {"merge_engine", EngineName(d.merge_engine)},
          {"changelog_image", d.changelog_image == table::ChangelogImage::kWal ? "wal" : "full"},
          {"log_ttl_ms", d.log_ttl_ms},
          {"auto_increment", d.auto_increment_column},
          {"lake", d.lake_enabled ? json{{"format", "iceberg"},
                                         {"freshness_ms", d.lake_freshness_ms},
                                         {"auto_compaction", d.lake_auto_compaction}}
                                  : json(nullptr)},
          {"options", d.options},
          {"partitions", partitions},
          {"schema_id", d.schema.schema_id}};
}

}  // namespace

Result<std::string> TableFlightService::TableOf(const FlightDescriptor& d) const {
  if (d.type == FlightDescriptor::Type::kPath) {
    if (d.path.size() != 2) {
      return InvalidArgumentError("a flight path is [database, table], not " + d.ToString());
    }
    return d.path[0] + "." + d.path[1];
  }
  if (d.type == FlightDescriptor::Type::kCmd) {
    MINK_ASSIGN_OR_RETURN(json j, ParseJsonObject(d.cmd, "descriptor command"));
    return JsonFields(j, "descriptor command").String("table");
  }
  return InvalidArgumentError("the flight descriptor names no table");
}

Status TableFlightService::Allow(const std::string& table, auth::Operation op) const {
  if (access_ == nullptr) return Status::Ok();
  return access_->Check(CurrentCaller(), auth::Resource::Table(table), op);
}

Result<FlightInfo> TableFlightService::InfoFor(const std::string& name) {
  MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->DescribeTable(name));
  FlightInfo fi;
  fi.schema = arrow::SerializeSchema(*table::ToArrowSchema(info.descriptor.schema));
  size_t dot = name.find('.');
  fi.descriptor = FlightDescriptor::Path({name.substr(0, dot), name.substr(dot + 1)});
  MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(name, std::nullopt));
  int64_t records = 0;
  // Each bucket's endpoint is at its owner (any node can serve a read, the owner has the tail
  // in its cache); this node's address while a bucket moves or its owner is unknown here.
  std::map<int32_t, std::string> addresses;
  if (membership_ != nullptr) {
    if (auto members = membership_->Members(); members.ok()) {
      for (const auto& m : *members) {
        if (m.live) addresses[m.node_id] = m.flight_address;
      }
    }
  }
  auto endpoint = [&](std::optional<std::string> partition, int32_t bucket) {
    json ticket = {{"table", name}, {"bucket", bucket}};
    if (partition) ticket["partition"] = *partition;
    FlightEndpoint e;
    e.ticket = ticket.dump();
    std::string location = advertise_;
    if (auto owner = tables_->BucketOwner(name, partition, bucket); owner.ok()) {
      if (auto a = addresses.find(*owner); a != addresses.end() && !a->second.empty()) {
        location = a->second;
      }
    }
    e.locations = {location};
    fi.endpoints.push_back(std::move(e));
  };
  if (info.descriptor.partitioned()) {
    for (const auto& [partition, id] : info.partitions) {
      for (int32_t b = 0; b < info.descriptor.bucket_count; ++b) endpoint(partition, b);
    }
  } else {
    for (int32_t b = 0; b < info.descriptor.bucket_count; ++b) endpoint(std::nullopt, b);
  }
  for (const auto& o : offsets) records += o.end - o.start;
  fi.total_records = info.descriptor.has_primary_key() ? -1 : records;
  return fi;
}

Result<std::vector<FlightInfo>> TableFlightService::ListFlights(const std::string& /*criteria*/) {
  MINK_ASSIGN_OR_RETURN(auto names, tables_->ListTables(""));
  std::vector<FlightInfo> out;
  for (const auto& name : names) {
    if (!MayDescribe(name)) continue;
    auto info = InfoFor(name);
    if (info.ok()) out.push_back(std::move(*info));  // a table dropped meanwhile is skipped
  }
  return out;
}

Result<FlightInfo> TableFlightService::GetFlightInfo(const FlightDescriptor& descriptor) {
  MINK_ASSIGN_OR_RETURN(std::string name, TableOf(descriptor));
  MINK_RETURN_IF_ERROR(Allow(name, auth::Operation::kDescribe));
  return InfoFor(name);
}

Result<std::string> TableFlightService::GetSchema(const FlightDescriptor& descriptor) {
  MINK_ASSIGN_OR_RETURN(std::string name, TableOf(descriptor));
  MINK_RETURN_IF_ERROR(Allow(name, auth::Operation::kDescribe));
  MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->DescribeTable(name));
  return arrow::SerializeSchema(*table::ToArrowSchema(info.descriptor.schema));
}

Status TableFlightService::DoGet(const std::string& ticket, FlightDataWriter& writer) {
  MINK_ASSIGN_OR_RETURN(table::ReadRequest request, ParseTicket(ticket));
  MINK_RETURN_IF_ERROR(Allow(request.table, auth::Operation::kRead));
  MINK_ASSIGN_OR_RETURN(arrow::SchemaPtr schema, tables_->ReadSchema(request));
  arrow::IpcMessage schema_message = arrow::EncodeSchemaMessage(*schema);
  if (!writer.Write(FlightData{std::nullopt, std::move(schema_message.metadata), "", ""})) {
    return Status::Ok();
  }
  MINK_ASSIGN_OR_RETURN(bool compressed, WantsCompressed(ticket));
  if (compressed && request.mode == table::ReadMode::kLog) {
    // Stored batches go out as stored: their buffers still compressed, never decoded here.
    return tables_->ReadMessages(
        request,
        [&](arrow::IpcMessage message) {
          return writer.Write(FlightData{std::nullopt, std::move(message.metadata),
                                         std::move(message.body), ""});
        },
        [&] { return writer.IsCancelled(); });
  }
  Status encode_error;
  Status s = tables_->Read(
      request,
      [&](const arrow::RecordBatchPtr& batch) {
        auto message = arrow::EncodeRecordBatchMessage(*batch);
        if (!message.ok()) {
          encode_error = message.status();
          return false;
        }
        return writer.Write(
            FlightData{std::nullopt, std::move(message->metadata), std::move(message->body), ""});
      },
      [&] { return writer.IsCancelled(); });
  MINK_RETURN_IF_ERROR(encode_error);
  return s;
}

Status TableFlightService::DoPut(FlightDataReader& reader, PutResultWriter& writer) {
  FlightData data;
  MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
  if (!more || !data.descriptor) return InvalidArgumentError("DoPut needs a descriptor naming the table");
  table::WriteRequest request;
  if (data.descriptor->type == FlightDescriptor::Type::kPath) {
    MINK_ASSIGN_OR_RETURN(request.table, TableOf(*data.descriptor));
  } else {
    MINK_ASSIGN_OR_RETURN(request, ParsePutCommand(data.descriptor->cmd));
  }
  MINK_RETURN_IF_ERROR(Allow(request.table, auth::Operation::kWrite));
  // Every message first (the whole put is validated before anything is written).
  arrow::IpcDecoder decoder;
  std::vector<arrow::RecordBatchPtr> batches;
  int64_t message_no = 0;
  while (true) {
    if (!data.data_header.empty()) {
      ++message_no;
      auto body = arrow::Buffer::FromString(std::move(data.body));
      auto decoded = decoder.Decode(data.data_header, body);
      if (!decoded.ok()) {
        return InvalidArgumentError("DoPut message " + std::to_string(message_no) + ": " +
                                    decoded.status().message());
      }
      if (decoded->kind == arrow::IpcDecoder::Kind::kRecordBatch) {
        Status valid = decoded->batch->Validate();
        if (!valid.ok()) {
          return InvalidArgumentError("DoPut message " + std::to_string(message_no) + ": " + valid.message());
        }
        batches.push_back(decoded->batch);
      }
    }
    MINK_ASSIGN_OR_RETURN(more, reader.Next(&data));
    if (!more) break;
  }
  MINK_ASSIGN_OR_RETURN(table::WriteResult result, tables_->Write(request, batches));
  json buckets = json::array();
  for (const auto& b : result.buckets) {
    buckets.push_back({{"bucket", b.bucket}, {"base_offset", b.base_offset}, {"end_offset", b.end_offset}});
  }
  writer.Write(PutResult{json{{"rows", result.rows}, {"buckets", buckets}}.dump()});
  return Status::Ok();
}

Status TableFlightService::DoExchange(FlightDataReader& reader, FlightDataWriter& writer) {
  FlightData data;
  MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
  if (!more || !data.descriptor || data.descriptor->type != FlightDescriptor::Type::kCmd) {
    return InvalidArgumentError(
        "DoExchange needs a command descriptor first: {\"table\", \"lookup\": \"key\" or "
        "\"prefix\"}");
  }
  MINK_ASSIGN_OR_RETURN(table::LookupRequest request, ParseLookupCommand(data.descriptor->cmd));
  MINK_RETURN_IF_ERROR(Allow(request.table, auth::Operation::kRead));
  MINK_ASSIGN_OR_RETURN(arrow::SchemaPtr schema, tables_->LookupSchema(request));
  if (!writer.Write(FlightData{std::nullopt, arrow::EncodeSchemaMessage(*schema).metadata, "", ""})) {
    return Status::Ok();
  }
  // Each key batch is answered before the next is read: a session of lookups on one call.
  arrow::IpcDecoder decoder;
  int64_t message_no = 0;
  while (true) {
    if (!data.data_header.empty()) {
      ++message_no;
      auto decoded = decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body)));
      if (!decoded.ok()) {
        return InvalidArgumentError("DoExchange message " + std::to_string(message_no) + ": " +
                                    decoded.status().message());
      }
      if (decoded->kind == arrow::IpcDecoder::Kind::kRecordBatch) {
        MINK_RETURN_IF_ERROR(decoded->batch->Validate());
        MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr rows, tables_->Lookup(request, *decoded->batch));
        MINK_ASSIGN_OR_RETURN(auto message, arrow::EncodeRecordBatchMessage(*rows));
        if (!writer.Write(FlightData{std::nullopt, std::move(message.metadata),
                                     std::move(message.body), ""})) {
          return Status::Ok();
        }
      }
    }
    MINK_ASSIGN_OR_RETURN(more, reader.Next(&data));
    if (!more) break;
  }
  return Status::Ok();
}

Status TableFlightService::DoAction(const Action& action, ActionResultWriter& writer) {
  const std::string what = "action " + action.type;
  MINK_ASSIGN_OR_RETURN(json body, ParseJsonObject(action.body, what + " body"));
  JsonFields f(body, what);
  if (access_ != nullptr) MINK_RETURN_IF_ERROR(CheckActionAccess(*access_, CurrentCaller(), action.type, body));
  json out = json::object();
  if (action.type == "create-database") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("name"));
    MINK_RETURN_IF_ERROR(tables_->CreateDatabase(name));
    out = {{"name", name}};
  } else if (action.type == "drop-database") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("name"));
    MINK_ASSIGN_OR_RETURN(bool cascade, f.Bool("cascade"));
    MINK_RETURN_IF_ERROR(tables_->DropDatabase(name, cascade));
  } else if (action.type == "list-databases") {
    json databases = json::array();
    for (const auto& db : tables_->ListDatabases()) {
      bool visible = access_ == nullptr ||
                     access_->Allowed(CurrentCaller(), auth::Resource::Database(db), auth::Operation::kDescribe);
      if (!visible) {
        auto tables = tables_->ListTables(db);
        visible = tables.ok() && std::any_of(tables->begin(), tables->end(),
                                             [&](const std::string& t) { return MayDescribe(t); });
      }
      if (visible) databases.push_back(db);
    }
    out = {{"databases", databases}};
  } else if (action.type == "create-table") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_ASSIGN_OR_RETURN(table::TableSpec spec, ParseTableSpec(body, what));
    MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->CreateTable(name, spec));
    out = Describe(info);
  } else if (action.type == "alter-table") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_ASSIGN_OR_RETURN(table::TableAlteration change, ParseAlteration(body, what));
    MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->AlterTable(name, change));
    out = Describe(info);
  } else if (action.type == "drop-table") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_RETURN_IF_ERROR(tables_->DropTable(name));
  } else if (action.type == "list-tables") {
    MINK_ASSIGN_OR_RETURN(std::string database, f.String("database", false));
    MINK_ASSIGN_OR_RETURN(auto names, tables_->ListTables(database));
    std::erase_if(names, [&](const std::string& t) { return !MayDescribe(t); });
    out = {{"tables", names}};
  } else if (action.type == "describe-table") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_ASSIGN_OR_RETURN(table::TableInfo info, tables_->DescribeTable(name));
    out = Describe(info);
    // Which node writes each bucket now (0 while it moves), as `offsets` reports it.
    MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(name, std::nullopt));
    json owners = json::array();
    for (const auto& o : offsets) owners.push_back({{"bucket", o.bucket}, {"owner", o.owner}});
    out["owners"] = owners;
    if (info.descriptor.lake_enabled) {
      // How far the lake lags: nothing when every bucket is tiered to its end, else the time
      // since the last lake snapshot (or since ever).
      MINK_ASSIGN_OR_RETURN(table::LakeSnapshotInfo lake, tables_->LakeSnapshot(name));
      bool behind = false;
      for (const auto& o : offsets) {
        for (const auto& [label, tiered] : lake.buckets) behind |= label == o.bucket && o.end > tiered;
      }
      const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
      out["lake"]["snapshot_id"] = lake.snapshot_id;
      out["lake"]["lag_ms"] = !behind ? 0 : lake.timestamp_ms == 0 ? -1 : now - lake.timestamp_ms;
    }
  } else if (action.type == "offsets") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    std::optional<int64_t> at;
    if (f.Has("at")) {
      MINK_ASSIGN_OR_RETURN(int64_t at_ms, f.Int("at", 0));
      at = at_ms;
    }
    MINK_ASSIGN_OR_RETURN(auto offsets, tables_->Offsets(name, at));
    json buckets = json::array();
    for (const auto& o : offsets) {
      json b = {{"bucket", o.bucket}, {"start", o.start}, {"end", o.end}};
      if (o.at) b["at"] = *o.at;
      b["owner"] = o.owner;
      buckets.push_back(b);
    }
    out = {{"buckets", buckets}};
  } else if (action.type == "continuous-sql") {
    MINK_ASSIGN_OR_RETURN(std::string sql, f.String("sql"));
    if (continuous_ == nullptr) return UnimplementedError("this node does not carry out continuous SQL");
    MINK_ASSIGN_OR_RETURN(json results, RunContinuousSql(*continuous_, sql, SystemClock::Get()->NowMillis()));
    out = {{"results", std::move(results)}};
  } else if (action.type == "lake-snapshot") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_ASSIGN_OR_RETURN(table::LakeSnapshotInfo lake, tables_->LakeSnapshot(name));
    json buckets = json::array();
    for (const auto& [label, offset] : lake.buckets) {
      buckets.push_back({{"bucket", label}, {"offset", offset}});
    }
    out = {{"snapshot_id", lake.snapshot_id},
           {"timestamp_ms", lake.timestamp_ms},
           {"sequence_number", lake.sequence_number},
           {"metadata_location", lake.metadata_location},
           {"buckets", buckets}};
  } else if (action.type == "column-stats") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("table"));
    MINK_ASSIGN_OR_RETURN(auto stats, tables_->ColumnStats(name));
    json buckets = json::array();
    for (const auto& b : stats) {
      json columns = json::array();
      for (const auto& c : b.columns) {
        json column = {{"name", c.column}, {"nulls", c.null_count}};
        if (c.has_values) {
          column["min"] = c.min;
          column["max"] = c.max;
        }
        columns.push_back(std::move(column));
      }
      json bucket = {{"bucket", b.bucket}, {"end", b.end}, {"rows", b.rows}, {"columns", columns}};
      if (b.partition) bucket["partition"] = *b.partition;
      buckets.push_back(std::move(bucket));
    }
    out = {{"buckets", buckets}};
  } else if (action.type == "list-nodes") {
    if (membership_ == nullptr) return UnimplementedError("this node does not track membership");
    MINK_ASSIGN_OR_RETURN(auto members, membership_->Members());
    const auto owned = tables_->BucketsPerNode();
    json nodes = json::array();
    for (const auto& m : members) {
      auto buckets = owned.find(m.node_id);
      nodes.push_back({{"node", m.node_id},
                       {"epoch", m.node_epoch},
                       {"flight", m.flight_address},
                       {"kafka", m.kafka_address},
                       {"live", m.live},
                       {"coordinator", m.coordinator},
                       {"heartbeat_ms", m.heartbeat_ms},
                       {"buckets", buckets == owned.end() ? 0 : buckets->second}});
    }
    out = {{"nodes", nodes}, {"session_timeout_ms", membership_->session_timeout().count()}};
  } else if (action.type == "create-user") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("name"));
    MINK_ASSIGN_OR_RETURN(std::string password, f.String("password"));
    MINK_ASSIGN_OR_RETURN(bool replace, f.Bool("replace"));
    MINK_ASSIGN_OR_RETURN(out, CreateUser(users_, name, password, replace));
  } else if (action.type == "delete-user") {
    MINK_ASSIGN_OR_RETURN(std::string name, f.String("name"));
    MINK_ASSIGN_OR_RETURN(out, DeleteUser(users_, name));
  } else if (action.type == "list-users") {
    MINK_ASSIGN_OR_RETURN(out, ListUsers(users_));
  } else if (action.type == "grant-acl" || action.type == "revoke-acl") {
    metadata::AclEntry entry;
    MINK_ASSIGN_OR_RETURN(entry.principal, f.String("principal"));
    MINK_ASSIGN_OR_RETURN(entry.resource, f.String("resource"));
    MINK_ASSIGN_OR_RETURN(entry.operation, f.String("operation"));
    if (action.type == "grant-acl") {
      MINK_ASSIGN_OR_RETURN(out, GrantAcl(users_, std::move(entry)));
    } else {
      MINK_ASSIGN_OR_RETURN(out, RevokeAcl(users_, std::move(entry)));
    }
  } else if (action.type == "list-acls") {
    MINK_ASSIGN_OR_RETURN(std::string principal, f.String("principal", false));
    MINK_ASSIGN_OR_RETURN(out, ListAcls(users_, principal));
  } else if (action.type == "init-writer") {
    MINK_ASSIGN_OR_RETURN(int64_t id, tables_->InitWriter());
    out = {{"writer_id", id}};
  } else {
    return InvalidArgumentError("unknown action '" + action.type + "' (see ListActions)");
  }
  writer.Write(ActionResult{out.dump()});
  return Status::Ok();
}

Result<std::vector<ActionType>> TableFlightService::ListActions() {
  return std::vector<ActionType>{
      {"create-database", "{\"name\"}: create a database"},
      {"drop-database", "{\"name\", \"cascade\"}: drop a database"},
      {"list-databases", "{}: the databases"},
      {"create-table", "{\"table\", \"columns\", \"primary_key\", \"partition_by\", \"bucket_count\", "
                       "\"bucket_key\", \"options\"}: create a table"},
      {"alter-table", "{\"table\", \"add_columns\", \"drop_columns\", \"rename_columns\", "
                      "\"modify_columns\", \"set_options\", \"reset_options\"}: change a table's "
                      "columns or options"},
      {"drop-table", "{\"table\"}: drop a table"},
      {"list-tables", "{\"database\"}: the tables of a database (or all)"},
      {"describe-table", "{\"table\"}: columns, keys, partitioning, buckets and options"},
      {"offsets", "{\"table\", \"at\"}: start and end offset of every bucket; with at (epoch ms) "
                  "the first offset committed at or after it"},
      {"continuous-sql", "{\"sql\"}: continuous SQL statements (CREATE SOURCE/STREAM/MATERIALIZED VIEW/SINK, DROP, "
                         "SHOW, DESCRIBE): {\"results\": one per statement}"},
      {"lake-snapshot", "{\"table\"}: a tiered table's lake snapshot: id, time, sequence number, "
                        "metadata file, and each bucket's tiered offset"},
      {"column-stats", "{\"table\"}: per bucket of a log table, min/max and null count of its "
                       "integer-valued columns over the log below \"end\""},
      {"init-writer", "{}: a writer id for idempotent writes"},
      {"create-user", "{\"name\", \"password\", \"replace\"}: a user; its password's SCRAM credentials are stored"},
      {"delete-user", "{\"name\"}: delete a user"},
      {"list-users", "{}: every user's name, SCRAM mechanisms and creation time"},
      {"grant-acl", "{\"principal\", \"resource\", \"operation\"}: allow a user (or * every user) describe, read, "
                    "write or admin on cluster, database:<db>, table:<db>.<table> or group:<id>"},
      {"revoke-acl", "{\"principal\", \"resource\", \"operation\"}: take a grant back"},
      {"list-acls", "{\"principal\"}: the grants (of one principal, with those to *)"},
      {"list-nodes", "{}: every node that heartbeats: id, epoch, advertised Flight and Kafka "
                     "addresses, whether it is live and the coordinator, the buckets it owns"},
  };
}

}  // namespace mink::flight
