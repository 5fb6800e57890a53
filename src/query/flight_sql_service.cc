#include "query/flight_sql_service.h"

#include <atomic>
#include <chrono>
#include <deque>
#include <map>
#include <mutex>
#include <random>

#include "arrow/FlightSql.pb.h"
#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "query/continuous.h"
#include "query/flight_sql_handles.h"
#include "sql/quote.h"

namespace mink::query {
namespace {

namespace pb = ::arrow::flight::protocol::sql;
using flight::FlightDescriptor;
using flight::FlightInfo;

constexpr char kTypeUrlPrefix[] = "type.googleapis.com/";

template <typename M>
std::string Pack(const M& message) {
  pb::Any any;
  any.set_type_url(kTypeUrlPrefix + message.GetDescriptor()->full_name());
  any.set_value(message.SerializeAsString());
  return any.SerializeAsString();
}

// A command: the message name (after "arrow.flight.protocol.sql.") and its bytes.
struct Command {
  std::string name;
  std::string value;
};

Result<Command> Unpack(const std::string& bytes, const char* what) {
  pb::Any any;
  if (!any.ParseFromString(bytes)) {
    return InvalidArgumentError(std::string(what) + " is not a Flight SQL command (google.protobuf.Any)");
  }
  const std::string& url = any.type_url();
  const std::string prefix = "arrow.flight.protocol.sql.";
  size_t slash = url.rfind('/');
  std::string full = slash == std::string::npos ? url : url.substr(slash + 1);
  if (full.rfind(prefix, 0) != 0) {
    return InvalidArgumentError(std::string(what) + ": unknown command type '" + url + "'");
  }
  return Command{full.substr(prefix.size()), any.value()};
}

template <typename M>
Result<M> Parse(const Command& command) {
  M message;
  if (!message.ParseFromString(command.value)) {
    return InvalidArgumentError("malformed " + command.name);
  }
  return message;
}

using sql::QuoteIdentifier;
using sql::QuoteLiteral;

// ---- The catalog commands as SQL over DuckDB's own catalog views.

std::string CatalogsSql() {
  return "SELECT database_name AS catalog_name FROM duckdb_databases() WHERE NOT internal "
         "ORDER BY catalog_name";
}

std::string DbSchemasSql(const pb::CommandGetDbSchemas& c) {
  std::string sql =
      "SELECT catalog_name, schema_name AS db_schema_name FROM information_schema.schemata "
      "WHERE catalog_name IN (SELECT database_name FROM duckdb_databases() WHERE NOT internal)";
  if (c.has_catalog()) sql += " AND catalog_name = " + QuoteLiteral(c.catalog());
  if (c.has_db_schema_filter_pattern()) {
    sql += " AND schema_name LIKE " + QuoteLiteral(c.db_schema_filter_pattern()) + " ESCAPE '\\'";
  }
  return sql + " ORDER BY catalog_name, db_schema_name";
}

std::string TablesSql(const pb::CommandGetTables& c) {
  std::string sql =
      "SELECT table_catalog AS catalog_name, table_schema AS db_schema_name, table_name, "
      "CASE table_type WHEN 'BASE TABLE' THEN 'TABLE' WHEN 'LOCAL TEMPORARY' THEN 'TABLE' "
      "ELSE table_type END AS table_type FROM information_schema.tables "
      "WHERE table_catalog IN (SELECT database_name FROM duckdb_databases() WHERE NOT internal)";
  if (c.has_catalog()) sql += " AND table_catalog = " + QuoteLiteral(c.catalog());
  if (c.has_db_schema_filter_pattern()) {
    sql += " AND table_schema LIKE " + QuoteLiteral(c.db_schema_filter_pattern()) + " ESCAPE '\\'";
  }
  if (c.has_table_name_filter_pattern()) {
    sql += " AND table_name LIKE " + QuoteLiteral(c.table_name_filter_pattern()) + " ESCAPE '\\'";
  }
  std::string sorted = "SELECT * FROM (" + sql + ")";
  if (c.table_types_size() > 0) {
    std::string list;
    for (const auto& t : c.table_types()) list += (list.empty() ? "" : ", ") + QuoteLiteral(t);
    sorted += " WHERE table_type IN (" + list + ")";
  }
  return sorted + " ORDER BY catalog_name, db_schema_name, table_name, table_type";
}

std::string TableTypesSql() {
  return "SELECT table_type FROM (VALUES ('LOCAL TEMPORARY'), ('TABLE'), ('VIEW')) t(table_type) "
         "ORDER BY table_type";
}

std::string PrimaryKeysSql(const pb::CommandGetPrimaryKeys& c) {
  std::string sql =
      "SELECT database_name AS catalog_name, schema_name AS db_schema_name, table_name, "
      "unnest(constraint_column_names) AS column_name, NULL::VARCHAR AS key_name, "
      "CAST(generate_subscripts(constraint_column_names, 1) AS INTEGER) AS key_sequence "
      "FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY' AND table_name = " +
      QuoteLiteral(c.table());
  if (c.has_catalog()) sql += " AND database_name = " + QuoteLiteral(c.catalog());
  if (c.has_db_schema()) sql += " AND schema_name = " + QuoteLiteral(c.db_schema());
  return "SELECT * FROM (" + sql + ") ORDER BY catalog_name, db_schema_name, table_name, key_sequence";
}

// XDBC (ODBC/JDBC) descriptions of the SQL types Mink tables have, in DuckDB's names.
std::string XdbcTypeInfoSql(const pb::CommandGetXdbcTypeInfo& c) {
  // type_name, data_type, column_size, literal_prefix, literal_suffix, create_params,
  // nullable, case_sensitive, searchable, unsigned_attribute, fixed_prec_scale, auto_increment,
  // local_type_name, minimum_scale, maximum_scale, sql_data_type, datetime_subcode,
  // num_prec_radix, interval_precision
  struct Row {
    const char* name;
    int data_type;
    const char* size;
    const char* prefix;
    const char* params;
    bool case_sensitive;
    const char* is_unsigned;
    bool fixed;
    const char* min_scale;
    const char* max_scale;
    int sql_type;
    const char* subcode;
    const char* radix;
  };
  const Row rows[] = {
      {"BOOLEAN", -7, "1", "NULL", "NULL", false, "NULL", false, "NULL", "NULL", -7, "NULL", "NULL"},
      {"TINYINT", -6, "3", "NULL", "NULL", false, "false", true, "0", "0", -6, "NULL", "10"},
      {"SMALLINT", 5, "5", "NULL", "NULL", false, "false", true, "0", "0", 5, "NULL", "10"},
      {"INTEGER", 4, "10", "NULL", "NULL", false, "false", true, "0", "0", 4, "NULL", "10"},
      {"BIGINT", -5, "19", "NULL", "NULL", false, "false", true, "0", "0", -5, "NULL", "10"},
      {"FLOAT", 7, "24", "NULL", "NULL", false, "false", false, "NULL", "NULL", 7, "NULL", "2"},
      {"DOUBLE", 8, "53", "NULL", "NULL", false, "false", false, "NULL", "NULL", 8, "NULL", "2"},
      {"DECIMAL", 3, "38", "NULL", "['precision', 'scale']", false, "false", true, "0", "38", 3,
       "NULL", "10"},
      {"VARCHAR", 12, "NULL", "''''", "NULL", true, "NULL", false, "NULL", "NULL", 12, "NULL",
       "NULL"},
      {"BLOB", -3, "NULL", "'\\x'", "NULL", false, "NULL", false, "NULL", "NULL", -3, "NULL",
       "NULL"},
      {"DATE", 91, "10", "'DATE '''", "NULL", false, "NULL", false, "NULL", "NULL", 9, "1", "NULL"},
      {"TIME", 92, "15", "'TIME '''", "NULL", false, "NULL", false, "NULL", "NULL", 9, "2",
       "NULL"},
      {"TIMESTAMP", 93, "26", "'TIMESTAMP '''", "NULL", false, "NULL", false, "NULL", "NULL", 9,
       "3", "NULL"},
      {"TIMESTAMP WITH TIME ZONE", 93, "32", "'TIMESTAMPTZ '''", "NULL", false, "NULL", false,
       "NULL", "NULL", 9, "5", "NULL"},
      {"INTEGER[]", 2003, "NULL", "NULL", "NULL", false, "NULL", false, "NULL", "NULL", 2003,
       "NULL", "NULL"},
  };
  std::string values;
  for (const Row& r : rows) {
    if (!values.empty()) values += ",\n";
    bool has_prefix = std::string(r.prefix) != "NULL";
    values += "(" + QuoteLiteral(r.name) + ", " + std::to_string(r.data_type) + ", " + r.size + ", " +
              r.prefix + ", " + (has_prefix ? "''''" : "NULL") + ", " + r.params + ", 1, " +
              (r.case_sensitive ? "true" : "false") + ", 3, " + r.is_unsigned + ", " +
              (r.fixed ? "true" : "false") + ", false, " + QuoteLiteral(r.name) + ", " + r.min_scale +
              ", " + r.max_scale + ", " + std::to_string(r.sql_type) + ", " + r.subcode + ", " +
              r.radix + ", NULL)";
  }
  std::string sql =
      "SELECT type_name::VARCHAR AS type_name, data_type::INTEGER AS data_type, "
      "column_size::INTEGER AS column_size, literal_prefix::VARCHAR AS literal_prefix, "
      "literal_suffix::VARCHAR AS literal_suffix, create_params::VARCHAR[] AS create_params, "
      "nullable::INTEGER AS nullable, case_sensitive::BOOLEAN AS case_sensitive, "
      "searchable::INTEGER AS searchable, unsigned_attribute::BOOLEAN AS unsigned_attribute, "
      "fixed_prec_scale::BOOLEAN AS fixed_prec_scale, auto_increment::BOOLEAN AS auto_increment, "
      "local_type_name::VARCHAR AS local_type_name, minimum_scale::INTEGER AS minimum_scale, "
      "maximum_scale::INTEGER AS maximum_scale, sql_data_type::INTEGER AS sql_data_type, "
      "datetime_subcode::INTEGER AS datetime_subcode, num_prec_radix::INTEGER AS num_prec_radix, "
      "interval_precision::INTEGER AS interval_precision FROM (VALUES " +
      values +
      ") t(type_name, data_type, column_size, literal_prefix, literal_suffix, create_params, "
      "nullable, case_sensitive, searchable, unsigned_attribute, fixed_prec_scale, "
      "auto_increment, local_type_name, minimum_scale, maximum_scale, sql_data_type, "
      "datetime_subcode, num_prec_radix, interval_precision)";
  if (c.has_data_type()) sql += " WHERE data_type = " + std::to_string(c.data_type());
  return sql + " ORDER BY data_type, type_name";
}

// ---- SqlInfo

std::vector<SqlInfoValue> AllSqlInfo() {
  using Kind = SqlInfoValue::Kind;
  auto str = [](uint32_t id, std::string text) {
    SqlInfoValue v;
    v.id = id;
    v.kind = Kind::kString;
    v.text = std::move(text);
    return v;
  };
  auto flag = [](uint32_t id, bool b) {
    SqlInfoValue v;
    v.id = id;
    v.kind = Kind::kBool;
    v.flag = b;
    return v;
  };
  auto number = [](uint32_t id, int64_t n, Kind kind) {
    SqlInfoValue v;
    v.id = id;
    v.kind = kind;
    v.number = n;
    return v;
  };
  return {
      str(0, "Mink"),                                      // FLIGHT_SQL_SERVER_NAME
      str(1, "mink-query (DuckDB " + LoadedDuckDBVersion() + ")"),  // FLIGHT_SQL_SERVER_VERSION
      str(2, "1.5.0"),                                     // FLIGHT_SQL_SERVER_ARROW_VERSION
      flag(3, true),    // FLIGHT_SQL_SERVER_READ_ONLY: the mink catalog is read-only
      flag(4, true),    // FLIGHT_SQL_SERVER_SQL
      flag(5, false),   // FLIGHT_SQL_SERVER_SUBSTRAIT
      number(8, 0, Kind::kBitmask),  // FLIGHT_SQL_SERVER_TRANSACTION: none
      flag(9, false),   // FLIGHT_SQL_SERVER_CANCEL
      number(100, 0, Kind::kBitmask),  // FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT: none
      number(101, 0, Kind::kBitmask),  // FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT: none
      flag(500, false),  // SQL_DDL_CATALOG
      flag(501, false),  // SQL_DDL_SCHEMA
      flag(502, false),  // SQL_DDL_TABLE
      number(503, 1, Kind::kBitmask),  // SQL_IDENTIFIER_CASE: case-insensitive
      str(504, "\""),                  // SQL_IDENTIFIER_QUOTE_CHAR
      number(505, 1, Kind::kBitmask),  // SQL_QUOTED_IDENTIFIER_CASE: case-insensitive
      flag(506, true),                 // SQL_ALL_TABLES_ARE_SELECTABLE
      number(507, 3, Kind::kBitmask),  // SQL_NULL_ORDERING: nulls at the end
      str(529, "schema"),              // SQL_SCHEMA_TERM
      str(531, "catalog"),             // SQL_CATALOG_TERM
      flag(532, true),                 // SQL_CATALOG_AT_START
  };
}

std::vector<SqlInfoValue> SelectSqlInfo(const pb::CommandGetSqlInfo& c,
                                        const std::vector<SqlInfoValue>& keywords) {
  std::vector<SqlInfoValue> all = AllSqlInfo();
  all.insert(all.end(), keywords.begin(), keywords.end());
  if (c.info_size() == 0) return all;
  std::vector<SqlInfoValue> out;
  for (uint32_t id : c.info()) {
    for (const auto& v : all) {
      if (v.id == id) out.push_back(v);
    }
  }
  return out;
}

// ---- Writing results

Status WriteSchema(const arrow::Schema& schema, flight::FlightDataWriter& writer, bool* open) {
  arrow::IpcMessage message = arrow::EncodeSchemaMessage(schema);
  *open = writer.Write(flight::FlightData{std::nullopt, std::move(message.metadata), "", ""});
  return Status::Ok();
}

Status WriteBatch(const arrow::RecordBatch& batch, flight::FlightDataWriter& writer, bool* open) {
  MINK_ASSIGN_OR_RETURN(arrow::IpcMessage message, arrow::EncodeRecordBatchMessage(batch));
  *open = writer.Write(
      flight::FlightData{std::nullopt, std::move(message.metadata), std::move(message.body), ""});
  return Status::Ok();
}

Status StreamResult(ResultStream& result, flight::FlightDataWriter& writer) {
  bool open = true;
  MINK_RETURN_IF_ERROR(WriteSchema(*result.schema(), writer, &open));
  while (open) {
    MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result.Next());
    if (batch == nullptr) break;
    MINK_RETURN_IF_ERROR(WriteBatch(*batch, writer, &open));
  }
  return Status::Ok();
}

}  // namespace

struct FlightSqlService::Impl {
  Impl(Engine* e, Callers* c) : engine(e), callers(c) {}

  Engine* engine;
  Callers* callers;  // null: every call reads as the engine does
  FlightSqlHandles handles;

  // The caller of the call this thread serves (flight::CurrentCaller()).
  Result<Caller> Current() const {
    if (callers == nullptr) return Caller{};
    return callers->Find(flight::CurrentCaller());
  }
  Result<std::unique_ptr<Session>> Connect() {
    MINK_ASSIGN_OR_RETURN(Caller caller, Current());
    return caller.cluster != nullptr ? engine->ConnectAs(caller.cluster) : engine->Connect();
  }
  // An authenticated caller's SQL only reads: DuckDB's own tables are shared by every caller of
  // this server, so nobody may leave data in them for others (anonymous callers, on a cluster
  // without authentication, may: everything is theirs to read anyway).
  Status CheckMayRun(Session& session, const std::string& sql) {
    MINK_ASSIGN_OR_RETURN(Caller caller, Current());
    if (callers == nullptr || caller.anonymous()) return Status::Ok();
    return session.CheckQueriesOnly(sql);
  }

  // The schema of a query's result, without running it.
  Result<arrow::SchemaPtr> SchemaOf(const std::string& sql) {
    MINK_ASSIGN_OR_RETURN(auto session, Connect());
    MINK_ASSIGN_OR_RETURN(auto statement, session->Prepare(sql));
    return statement->result_schema();
  }

  // The SQL behind a catalog command, or "" when the command is not one.
  Result<std::string> CatalogSql(const Command& c) {
    if (c.name == "CommandGetCatalogs") return CatalogsSql();
    if (c.name == "CommandGetDbSchemas") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandGetDbSchemas>(c));
      return DbSchemasSql(m);
    }
    if (c.name == "CommandGetTables") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandGetTables>(c));
      return TablesSql(m);
    }
    if (c.name == "CommandGetTableTypes") return TableTypesSql();
    if (c.name == "CommandGetPrimaryKeys") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandGetPrimaryKeys>(c));
      return PrimaryKeysSql(m);
    }
    if (c.name == "CommandGetXdbcTypeInfo") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandGetXdbcTypeInfo>(c));
      return XdbcTypeInfoSql(m);
    }
    return std::string();
  }

  static bool IncludeSchema(const Command& c) {
    if (c.name != "CommandGetTables") return false;
    pb::CommandGetTables m;
    return m.ParseFromString(c.value) && m.include_schema();
  }

  static arrow::SchemaPtr WithTableSchemaColumn(const arrow::Schema& schema) {
    std::vector<arrow::Field> fields = schema.fields();
    fields.emplace_back("table_schema", arrow::Binary(), false);
    return std::make_shared<arrow::Schema>(std::move(fields));
  }

  // The IPC-encapsulated schema of one table.
  Result<std::string> TableSchemaBytes(const std::string& catalog, const std::string& schema,
                                       const std::string& table) {
    MINK_ASSIGN_OR_RETURN(arrow::SchemaPtr s,
                          SchemaOf("SELECT * FROM " + QuoteIdentifier(catalog) + "." +
                                   QuoteIdentifier(schema) + "." + QuoteIdentifier(table)));
    return arrow::SerializeSchema(*s);
  }

  Result<std::vector<SqlInfoValue>> Keywords() {
    MINK_ASSIGN_OR_RETURN(auto session, Connect());
    MINK_ASSIGN_OR_RETURN(auto result, session->Execute(
        "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved' "
        "ORDER BY keyword_name"));
    SqlInfoValue v;
    v.id = 508;  // SQL_KEYWORDS
    v.kind = SqlInfoValue::Kind::kStringList;
    while (true) {
      MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result->Next());
      if (batch == nullptr) break;
      const auto& column = batch->Column(0);
      const int32_t* offsets = column->buffers[1]->data_as<int32_t>();
      for (int64_t i = 0; i < batch->num_rows(); ++i) {
        v.list.emplace_back(column->buffers[2]->data_as<char>() + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
      }
    }
    return std::vector<SqlInfoValue>{std::move(v)};
  }

  Status StreamCatalog(const Command& c, const std::string& sql, flight::FlightDataWriter& writer) {
    MINK_ASSIGN_OR_RETURN(auto session, Connect());
    MINK_ASSIGN_OR_RETURN(auto result, session->Execute(sql));
    if (!IncludeSchema(c)) return StreamResult(*result, writer);
    // GetTables with include_schema: one more column, the IPC schema of each table.
    arrow::SchemaPtr schema = WithTableSchemaColumn(*result->schema());
    bool open = true;
    MINK_RETURN_IF_ERROR(WriteSchema(*schema, writer, &open));
    while (open) {
      MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result->Next());
      if (batch == nullptr) break;
      arrow::BinaryBuilder schemas(arrow::Binary());
      auto text = [&](int column, int64_t row) {
        const auto& data = batch->Column(column);
        const int32_t* offsets = data->buffers[1]->data_as<int32_t>();
        return std::string(data->buffers[2]->data_as<char>() + offsets[row],
                           static_cast<size_t>(offsets[row + 1] - offsets[row]));
      };
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        MINK_ASSIGN_OR_RETURN(std::string bytes,
                              TableSchemaBytes(text(0, row), text(1, row), text(2, row)));
        MINK_RETURN_IF_ERROR(schemas.Append(bytes));
      }
      std::vector<arrow::ArrayDataPtr> columns;
      for (int i = 0; i < batch->num_columns(); ++i) columns.push_back(batch->Column(i));
      MINK_ASSIGN_OR_RETURN(arrow::ArrayDataPtr extra, schemas.Finish());
      columns.push_back(std::move(extra));
      MINK_ASSIGN_OR_RETURN(auto out,
                            arrow::RecordBatch::Make(schema, batch->num_rows(), std::move(columns)));
      MINK_RETURN_IF_ERROR(WriteBatch(*out, writer, &open));
    }
    return Status::Ok();
  }

  // The Arrow schema a command's results have (IPC-encapsulated).
  Result<std::string> SchemaBytes(const Command& c) {
    if (c.name == "CommandStatementQuery") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandStatementQuery>(c));
      MINK_ASSIGN_OR_RETURN(auto session, Connect());
      MINK_RETURN_IF_ERROR(CheckMayRun(*session, m.query()));
      MINK_ASSIGN_OR_RETURN(auto statement, session->Prepare(m.query()));
      return arrow::SerializeSchema(*statement->result_schema());
    }
    if (c.name == "CommandPreparedStatementQuery") {
      MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandPreparedStatementQuery>(c));
      MINK_ASSIGN_OR_RETURN(auto p, handles.FindPrepared(flight::CurrentCaller(), m.prepared_statement_handle()));
      return arrow::SerializeSchema(*p->statement->result_schema());
    }
    if (c.name == "CommandGetSqlInfo") return SqlInfoSchemaBytes();
    MINK_ASSIGN_OR_RETURN(std::string sql, CatalogSql(c));
    if (sql.empty()) return UnimplementedError("Flight SQL command " + c.name + " is not supported");
    MINK_ASSIGN_OR_RETURN(arrow::SchemaPtr s, SchemaOf(sql));
    if (IncludeSchema(c)) s = WithTableSchemaColumn(*s);
    return arrow::SerializeSchema(*s);
  }
};

FlightSqlService::FlightSqlService(Engine* engine, Callers* callers)
    : impl_(std::make_unique<Impl>(engine, callers)) {}
FlightSqlService::~FlightSqlService() = default;

Result<std::vector<FlightInfo>> FlightSqlService::ListFlights(const std::string&) {
  return std::vector<FlightInfo>{};
}

Result<FlightInfo> FlightSqlService::GetFlightInfo(const FlightDescriptor& descriptor) {
  if (descriptor.type != FlightDescriptor::Type::kCmd) {
    return InvalidArgumentError("a Flight SQL descriptor is a command, not " + descriptor.ToString());
  }
  MINK_ASSIGN_OR_RETURN(Command c, Unpack(descriptor.cmd, "the descriptor"));
  FlightInfo info;
  info.descriptor = descriptor;
  MINK_ASSIGN_OR_RETURN(info.schema, impl_->SchemaBytes(c));
  flight::FlightEndpoint endpoint;  // no locations: read it here
  if (c.name == "CommandStatementQuery") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandStatementQuery>(c));
    if (m.has_transaction_id()) return UnimplementedError("transactions are not supported");
    pb::TicketStatementQuery ticket;
    ticket.set_statement_handle(impl_->handles.AddStatement(flight::CurrentCaller(), m.query()));
    endpoint.ticket = Pack(ticket);
  } else {
    endpoint.ticket = descriptor.cmd;  // the command itself (prepared statements, catalog)
  }
  info.endpoints.push_back(std::move(endpoint));
  return info;
}

Result<std::string> FlightSqlService::GetSchema(const FlightDescriptor& descriptor) {
  if (descriptor.type != FlightDescriptor::Type::kCmd) {
    return InvalidArgumentError("a Flight SQL descriptor is a command, not " + descriptor.ToString());
  }
  MINK_ASSIGN_OR_RETURN(Command c, Unpack(descriptor.cmd, "the descriptor"));
  return impl_->SchemaBytes(c);
}

Status FlightSqlService::DoGet(const std::string& ticket, flight::FlightDataWriter& writer) {
  MINK_ASSIGN_OR_RETURN(Command c, Unpack(ticket, "the ticket"));
  if (c.name == "TicketStatementQuery") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::TicketStatementQuery>(c));
    MINK_ASSIGN_OR_RETURN(std::string sql, impl_->handles.TakeStatement(flight::CurrentCaller(), m.statement_handle()));
    MINK_ASSIGN_OR_RETURN(auto session, impl_->Connect());
    MINK_RETURN_IF_ERROR(impl_->CheckMayRun(*session, sql));
    MINK_ASSIGN_OR_RETURN(auto result, session->Execute(sql));
    return StreamResult(*result, writer);
  }
  if (c.name == "CommandPreparedStatementQuery") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandPreparedStatementQuery>(c));
    MINK_ASSIGN_OR_RETURN(auto p, impl_->handles.FindPrepared(flight::CurrentCaller(), m.prepared_statement_handle()));
    std::lock_guard<std::mutex> lock(p->mu);
    if (p->parameters != nullptr && p->parameters->num_rows() != 1) {
      return InvalidArgumentError("a prepared query runs with one row of parameters, not " +
                                  std::to_string(p->parameters->num_rows()));
    }
    if (p->parameters == nullptr && p->statement->parameter_schema()->num_fields() > 0) {
      return InvalidArgumentError("the prepared statement has " +
                                  std::to_string(p->statement->parameter_schema()->num_fields()) +
                                  " parameter(s); bind them with DoPut first");
    }
    MINK_ASSIGN_OR_RETURN(auto result, p->statement->Execute(p->parameters, 0));
    return StreamResult(*result, writer);
  }
  if (c.name == "CommandGetSqlInfo") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandGetSqlInfo>(c));
    MINK_ASSIGN_OR_RETURN(auto keywords, impl_->Keywords());
    auto [metadata, body] = SqlInfoBatchMessage(SelectSqlInfo(m, keywords));
    if (!writer.Write(flight::FlightData{std::nullopt, SqlInfoSchemaMessage(), "", ""})) {
      return Status::Ok();
    }
    writer.Write(flight::FlightData{std::nullopt, std::move(metadata), std::move(body), ""});
    return Status::Ok();
  }
  MINK_ASSIGN_OR_RETURN(std::string sql, impl_->CatalogSql(c));
  if (sql.empty()) return UnimplementedError("Flight SQL ticket " + c.name + " is not supported");
  return impl_->StreamCatalog(c, sql, writer);
}

Status FlightSqlService::DoPut(flight::FlightDataReader& reader, flight::PutResultWriter& writer) {
  flight::FlightData data;
  MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
  if (!more || !data.descriptor || data.descriptor->type != FlightDescriptor::Type::kCmd) {
    return InvalidArgumentError("a Flight SQL DoPut starts with a command descriptor");
  }
  MINK_ASSIGN_OR_RETURN(Command c, Unpack(data.descriptor->cmd, "the DoPut descriptor"));
  // Every batch of the stream (parameters).
  arrow::IpcDecoder decoder;
  std::vector<arrow::RecordBatchPtr> batches;
  while (true) {
    if (!data.data_header.empty()) {
      auto decoded = decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body)));
      if (!decoded.ok()) return InvalidArgumentError("DoPut: " + decoded.status().message());
      if (decoded->kind == arrow::IpcDecoder::Kind::kRecordBatch) batches.push_back(decoded->batch);
    }
    MINK_ASSIGN_OR_RETURN(more, reader.Next(&data));
    if (!more) break;
  }
  auto run_update = [&](ResultStream& result, int64_t* count) -> Status {
    // A statement that changes rows answers with one BIGINT column "Count".
    const arrow::Schema& s = *result.schema();
    bool counted = s.num_fields() == 1 && s.field(0).name() == "Count";
    while (true) {
      MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result.Next());
      if (batch == nullptr) break;
      if (counted && batch->num_rows() > 0 && batch->Column(0)->type->id() == arrow::TypeId::kInt64) {
        *count = (*count < 0 ? 0 : *count) + batch->Column(0)->buffers[1]->data_as<int64_t>()[0];
      }
    }
    return Status::Ok();
  };
  if (c.name == "CommandPreparedStatementQuery") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandPreparedStatementQuery>(c));
    MINK_ASSIGN_OR_RETURN(auto p, impl_->handles.FindPrepared(flight::CurrentCaller(), m.prepared_statement_handle()));
    if (batches.size() > 1) return InvalidArgumentError("bind the parameters in one batch");
    {
      std::lock_guard<std::mutex> lock(p->mu);
      p->parameters = batches.empty() ? nullptr : batches[0];
      if (p->parameters != nullptr &&
          p->parameters->num_columns() != p->statement->parameter_schema()->num_fields()) {
        Status st = InvalidArgumentError(
            "the prepared statement takes " +
            std::to_string(p->statement->parameter_schema()->num_fields()) + " parameter(s), not " +
            std::to_string(p->parameters->num_columns()));
        p->parameters = nullptr;
        return st;
      }
    }
    pb::DoPutPreparedStatementResult result;
    result.set_prepared_statement_handle(m.prepared_statement_handle());
    writer.Write(flight::PutResult{result.SerializeAsString()});
    return Status::Ok();
  }
  if (c.name == "CommandStatementUpdate") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandStatementUpdate>(c));
    if (m.has_transaction_id()) return UnimplementedError("transactions are not supported");
    // Continuous SQL's statements are the node's (docs/streaming-sql.md): the count is theirs.
    MINK_ASSIGN_OR_RETURN(Caller caller, impl_->Current());
    client::Cluster& cluster = caller.cluster != nullptr ? *caller.cluster : impl_->engine->cluster();
    MINK_ASSIGN_OR_RETURN(std::optional<int64_t> count, RunContinuousUpdate(cluster, m.query()));
    if (!count) {
      count = -1;  // DuckDB's statement
      MINK_ASSIGN_OR_RETURN(auto session, impl_->Connect());
      MINK_RETURN_IF_ERROR(impl_->CheckMayRun(*session, m.query()));
      MINK_ASSIGN_OR_RETURN(auto result, session->Execute(m.query()));
      MINK_RETURN_IF_ERROR(run_update(*result, &*count));
    }
    pb::DoPutUpdateResult out;
    out.set_record_count(*count);
    writer.Write(flight::PutResult{out.SerializeAsString()});
    return Status::Ok();
  }
  if (c.name == "CommandPreparedStatementUpdate") {
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::CommandPreparedStatementUpdate>(c));
    MINK_ASSIGN_OR_RETURN(auto p, impl_->handles.FindPrepared(flight::CurrentCaller(), m.prepared_statement_handle()));
    std::lock_guard<std::mutex> lock(p->mu);
    int64_t count = -1;
    if (batches.empty()) {
      MINK_ASSIGN_OR_RETURN(auto result, p->statement->Execute(nullptr, 0));
      MINK_RETURN_IF_ERROR(run_update(*result, &count));
    }
    for (const auto& batch : batches) {
      for (int64_t row = 0; row < batch->num_rows(); ++row) {
        MINK_ASSIGN_OR_RETURN(auto result, p->statement->Execute(batch, row));
        MINK_RETURN_IF_ERROR(run_update(*result, &count));
      }
    }
    pb::DoPutUpdateResult out;
    out.set_record_count(count);
    writer.Write(flight::PutResult{out.SerializeAsString()});
    return Status::Ok();
  }
  return UnimplementedError("Flight SQL DoPut of " + c.name + " is not supported");
}

Status FlightSqlService::DoAction(const flight::Action& action, flight::ActionResultWriter& writer) {
  if (action.type == "CreatePreparedStatement") {
    MINK_ASSIGN_OR_RETURN(Command c, Unpack(action.body, "the CreatePreparedStatement body"));
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::ActionCreatePreparedStatementRequest>(c));
    if (m.has_transaction_id()) return UnimplementedError("transactions are not supported");
    auto p = std::make_shared<PreparedQuery>();
    p->sql = m.query();
    MINK_ASSIGN_OR_RETURN(p->session, impl_->Connect());
    MINK_RETURN_IF_ERROR(impl_->CheckMayRun(*p->session, m.query()));
    MINK_ASSIGN_OR_RETURN(p->statement, p->session->Prepare(m.query()));
    pb::ActionCreatePreparedStatementResult result;
    result.set_dataset_schema(arrow::SerializeSchema(*p->statement->result_schema()));
    result.set_parameter_schema(arrow::SerializeSchema(*p->statement->parameter_schema()));
    result.set_prepared_statement_handle(impl_->handles.AddPrepared(flight::CurrentCaller(), std::move(p)));
    writer.Write(flight::ActionResult{Pack(result)});
    return Status::Ok();
  }
  if (action.type == "ClosePreparedStatement") {
    MINK_ASSIGN_OR_RETURN(Command c, Unpack(action.body, "the ClosePreparedStatement body"));
    MINK_ASSIGN_OR_RETURN(auto m, Parse<pb::ActionClosePreparedStatementRequest>(c));
    return impl_->handles.ClosePrepared(flight::CurrentCaller(), m.prepared_statement_handle());
  }
  return UnimplementedError("action '" + action.type + "' is not supported");
}

Result<std::vector<flight::ActionType>> FlightSqlService::ListActions() {
  return std::vector<flight::ActionType>{
      {"CreatePreparedStatement", "ActionCreatePreparedStatementRequest -> handle and schemas"},
      {"ClosePreparedStatement", "ActionClosePreparedStatementRequest"}};
}

}  // namespace mink::query
