#pragma once
// INTERNAL to the Flight server, client and their tests: include only from .cc files. It pulls
// in the generated protobuf messages and gRPC's ByteBuffer, which must stay out of the headers
// the rest of Mink includes.
//
// Conversions between the plain types (types.h) and the generated messages, and the FlightData
// encoder used on the hot send paths (server DoGet, client DoPut).

#include <grpcpp/support/byte_buffer.h>

#include "arrow/Flight.pb.h"
#include "flight/protocol/types.h"

namespace mink::flight::wire {

namespace pb = ::arrow::flight::protocol;

// gRPC method paths, for the calls that bypass the generated stub.
inline constexpr char kDoPutMethod[] = "/arrow.flight.protocol.FlightService/DoPut";

// Trailing metadata our server adds to every error a handler returned (value: the Status code
// name). It lets our client tell a node's own Unavailable ("bucket moving") from a transport
// failure ("cannot reach node at ..."). Other clients ignore it.
inline constexpr char kHandlerStatusTrailer[] = "mink-handler-status";

void ToProto(const FlightDescriptor& in, pb::FlightDescriptor* out);
FlightDescriptor FromProto(const pb::FlightDescriptor& in);
void ToProto(const FlightEndpoint& in, pb::FlightEndpoint* out);
FlightEndpoint FromProto(const pb::FlightEndpoint& in);
void ToProto(const FlightInfo& in, pb::FlightInfo* out);
FlightInfo FromProto(const pb::FlightInfo& in);
void ToProto(const Action& in, pb::Action* out);
Action FromProto(const pb::Action& in);
ActionType FromProto(const pb::ActionType& in);

// Moves the byte fields out of `in` (no copy of the body).
FlightData FromProto(pb::FlightData&& in);
// Moves the byte fields of `in` into `out`.
void ToProto(FlightData&& in, pb::FlightData* out);

// Serializes a FlightData message into a ByteBuffer, with the same bytes protobuf would write
// (fields in number order, empty fields omitted). A body larger than a few KiB is not copied:
// it is moved to the heap and handed to gRPC as its own slice, freed when gRPC drops it. The
// small fields and the body's tag and length are copied into a first slice.
grpc::ByteBuffer EncodeFlightData(FlightData&& data);

}  // namespace mink::flight::wire
