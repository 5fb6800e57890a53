#include "client/flight_sql.h"

#include "arrow/FlightSql.pb.h"
#include "arrow_format/ipc.h"

namespace mink::client {

Result<SqlAnswer> RunFlightSql(const std::string& address, const std::string& sql,
                               const flight::FlightClientOptions& options, int64_t max_rows) {
  namespace pb = ::arrow::flight::protocol::sql;
  pb::CommandStatementQuery query;
  query.set_query(sql);
  pb::Any any;
  any.set_type_url("type.googleapis.com/" + query.GetDescriptor()->full_name());
  any.set_value(query.SerializeAsString());
  MINK_ASSIGN_OR_RETURN(auto client, flight::FlightClient::Connect(address, options));
  MINK_ASSIGN_OR_RETURN(flight::FlightInfo info,
                        client->GetFlightInfo(flight::FlightDescriptor::Command(any.SerializeAsString())));
  SqlAnswer answer;
  int64_t rows = 0;
  for (const auto& endpoint : info.endpoints) {
    MINK_ASSIGN_OR_RETURN(auto stream, client->DoGet(endpoint.ticket));
    arrow::IpcDecoder decoder;
    flight::FlightData data;
    while (true) {
      MINK_ASSIGN_OR_RETURN(bool more, stream->Next(&data));
      if (!more) break;
      if (data.data_header.empty()) continue;
      MINK_ASSIGN_OR_RETURN(auto decoded,
                            decoder.Decode(data.data_header, arrow::Buffer::FromString(std::move(data.body))));
      if (answer.schema == nullptr) answer.schema = decoder.schema();
      if (decoded.kind != arrow::IpcDecoder::Kind::kRecordBatch) continue;
      if (rows >= max_rows) {
        answer.truncated = true;
        stream->Cancel();
        break;
      }
      rows += decoded.batch->num_rows();
      answer.batches.push_back(std::move(decoded.batch));
    }
  }
  return answer;
}

}  // namespace mink::client
