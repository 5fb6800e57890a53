#pragma once
// FlightSqlService: Arrow Flight SQL over the engine, served by flight::FlightServer
// (`mink-query serve`). Commands are the messages of spec/arrow/FlightSql.proto packed in a
// google.protobuf.Any (descriptor commands, tickets, action bodies):
//   GetFlightInfo / GetSchema: CommandStatementQuery, CommandPreparedStatementQuery,
//     CommandGetCatalogs, CommandGetDbSchemas, CommandGetTables, CommandGetTableTypes,
//     CommandGetPrimaryKeys, CommandGetSqlInfo, CommandGetXdbcTypeInfo;
//   DoGet: the tickets those return (TicketStatementQuery, or the command itself);
//   DoAction: CreatePreparedStatement, ClosePreparedStatement;
//   DoPut: parameters of a prepared statement, CommandStatementUpdate,
//     CommandPreparedStatementUpdate (the mink catalog is read-only; local DuckDB tables are not).
// SQL errors are InvalidArgument with DuckDB's message (and position).
//
// Callers (with `callers`): each call runs as the caller the server authenticated
// (flight::CurrentCaller() is a Callers key): its sessions read through the caller's cluster
// client, its handles are its own, and an authenticated caller's SQL only reads (queries; DuckDB's
// local tables are shared by every caller). Continuous SQL goes to the node as the caller.
//
// Threading: gRPC calls the handler concurrently. Every call gets a DuckDB session of its own;
// a prepared statement owns a session and runs under its own mutex. Statement and prepared
// handles are bounded (the oldest are dropped).

#include <memory>
#include <string>
#include <vector>

#include "flight/server/flight_handler.h"
#include "query/callers.h"
#include "query/engine.h"

namespace mink::query {

class FlightSqlService : public flight::FlightHandler {
 public:
  // `callers` null: every call reads as the engine does (a server of one local user).
  explicit FlightSqlService(Engine* engine, Callers* callers = nullptr);
  ~FlightSqlService() override;

  Result<std::vector<flight::FlightInfo>> ListFlights(const std::string& criteria) override;
  Result<flight::FlightInfo> GetFlightInfo(const flight::FlightDescriptor& descriptor) override;
  Result<std::string> GetSchema(const flight::FlightDescriptor& descriptor) override;
  Status DoGet(const std::string& ticket, flight::FlightDataWriter& writer) override;
  Status DoPut(flight::FlightDataReader& reader, flight::PutResultWriter& writer) override;
  Status DoAction(const flight::Action& action, flight::ActionResultWriter& writer) override;
  Result<std::vector<flight::ActionType>> ListActions() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The GetSqlInfo answer as IPC messages (schema, then one record batch): info_name uint32 and
// value dense_union<string_value, bool_value, bigint_value, int32_bitmask, string_list,
// int32_to_int32_list_map>, for the requested ids (every known id when `ids` is empty).
// Our Arrow library has no unions, so sql_info.cc writes these messages itself.
struct SqlInfoValue {
  enum class Kind { kString = 0, kBool = 1, kBigInt = 2, kBitmask = 3, kStringList = 4 };
  uint32_t id = 0;
  Kind kind = Kind::kString;
  std::string text;
  bool flag = false;
  int64_t number = 0;
  std::vector<std::string> list;
};
std::string SqlInfoSchemaMessage();  // the flatbuffer Message (unframed)
std::string SqlInfoSchemaBytes();    // IPC-encapsulated, for FlightInfo.schema
// Metadata (unframed flatbuffer) and body of the record batch message.
std::pair<std::string, std::string> SqlInfoBatchMessage(const std::vector<SqlInfoValue>& values);

}  // namespace mink::query
