#pragma once
// TableFlightService: the Flight API of a node (docs/flight-api.md) over the table layer.
// Commands are JSON in Action.body, FlightDescriptor.cmd and Ticket; data is Arrow IPC.
// Thread-safe: gRPC calls every method concurrently.

#include <string>

#include "auth/access_control.h"
#include "cluster/membership.h"
#include "flight/server/flight_handler.h"
#include "metadata/metadata_log.h"
#include "stream/catalog.h"
#include "table/table_store.h"

namespace mink::flight {

class TableFlightService final : public FlightHandler {
 public:
  // `advertise` is the location handed out in FlightInfo endpoints (grpc://host:port);
  // `membership` (may be null) answers list-nodes; `continuous` (may be null) continuous-sql;
  // `users` (may be null) the users and access control actions (user_actions.h); `access` (null
  // with authentication off) what each caller (CurrentCaller()) may do (action_access.h).
  TableFlightService(table::TableStore* tables, std::string advertise,
                     const cluster::Membership* membership = nullptr, stream::Catalog* continuous = nullptr,
                     metadata::MetadataLog* users = nullptr, const auth::AccessControl* access = nullptr)
      : tables_(tables),
        advertise_(std::move(advertise)),
        membership_(membership),
        continuous_(continuous),
        users_(users),
        access_(access) {}

  Result<std::vector<FlightInfo>> ListFlights(const std::string& criteria) override;
  Result<FlightInfo> GetFlightInfo(const FlightDescriptor& descriptor) override;
  Result<std::string> GetSchema(const FlightDescriptor& descriptor) override;
  Status DoGet(const std::string& ticket, FlightDataWriter& writer) override;
  Status DoPut(FlightDataReader& reader, PutResultWriter& writer) override;
  Status DoAction(const Action& action, ActionResultWriter& writer) override;
  // Lookups: a command descriptor {"table", "lookup": "key" | "prefix", "columns",
  // "forwarded"} with the keys' schema, then key batches, each answered by one batch of rows.
  Status DoExchange(FlightDataReader& reader, FlightDataWriter& writer) override;
  Result<std::vector<ActionType>> ListActions() override;

 private:
  Result<std::string> TableOf(const FlightDescriptor& descriptor) const;
  Result<FlightInfo> InfoFor(const std::string& table);
  // OK when the caller may do `op` on `table` (always with authentication off).
  Status Allow(const std::string& table, auth::Operation op) const;
  bool MayDescribe(const std::string& table) const { return Allow(table, auth::Operation::kDescribe).ok(); }

  table::TableStore* const tables_;
  const std::string advertise_;
  const cluster::Membership* const membership_;
  stream::Catalog* const continuous_;
  metadata::MetadataLog* const users_;
  const auth::AccessControl* const access_;
};

}  // namespace mink::flight
