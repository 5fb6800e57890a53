#pragma once
// FlightHandler: what a Flight service does, as seen by FlightServer. The table layer implements
// it; the server turns each gRPC call into one handler call and the returned Status into the
// call's gRPC status (codes and message kept).
//
// Threading: gRPC calls the handler concurrently from its own threads, one thread per call for
// the call's whole duration (a long DoGet holds its thread). Handlers must be thread-safe. A
// streaming call's reader and writer belong to that call and must not outlive the handler method.

#include <string>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "flight/protocol/types.h"

namespace mink::flight {

// DoGet's and DoExchange's output stream.
class FlightDataWriter {
 public:
  virtual ~FlightDataWriter() = default;
  // Sends one message (blocking while the client is slow to read: gRPC flow control). Returns
  // false once the call is over — the client cancelled or went away, or the deadline passed or
  // the server is shutting down — and the handler should then stop and return.
  virtual bool Write(FlightData data) = 0;
  // True once the call is over; a handler that waits for new data (a follow read) polls this.
  virtual bool IsCancelled() const = 0;
};

// DoPut's and DoExchange's input stream.
class FlightDataReader {
 public:
  virtual ~FlightDataReader() = default;
  // Reads the next message: true with *out filled, false at the end of the client's stream.
  // The first message of a well-formed DoPut carries `descriptor`.
  virtual Result<bool> Next(FlightData* out) = 0;
  virtual bool IsCancelled() const = 0;
};

// DoPut's acknowledgements. May be used while reading (from the same or another thread).
class PutResultWriter {
 public:
  virtual ~PutResultWriter() = default;
  // False once the call is over.
  virtual bool Write(PutResult result) = 0;
};

// DoAction's results.
class ActionResultWriter {
 public:
  virtual ~ActionResultWriter() = default;
  // False once the call is over.
  virtual bool Write(ActionResult result) = 0;
};

// Who the call a handler method serves is authenticated as: "" with authentication off (or the
// anonymous caller let in while the cluster has no user). FlightServer sets it on the call's
// thread before the handler runs; handlers pass it on to their access checks.
const std::string& CurrentCaller();

class FlightHandler {
 public:
  virtual ~FlightHandler() = default;

  // Every flight matching `criteria` (opaque bytes; empty means all).
  virtual Result<std::vector<FlightInfo>> ListFlights(const std::string& criteria) = 0;
  virtual Result<FlightInfo> GetFlightInfo(const FlightDescriptor& descriptor) = 0;
  // The encapsulated IPC Schema message of the flight.
  virtual Result<std::string> GetSchema(const FlightDescriptor& descriptor) = 0;
  // Streams the data a ticket stands for until done, or until writer.Write returns false.
  virtual Status DoGet(const std::string& ticket, FlightDataWriter& writer) = 0;
  virtual Status DoPut(FlightDataReader& reader, PutResultWriter& writer) = 0;
  virtual Status DoAction(const Action& action, ActionResultWriter& writer) = 0;
  // A two-way stream: the client's messages in (the first carries the descriptor), the
  // handler's out, interleaved as the handler likes. Unimplemented unless a handler serves it.
  virtual Status DoExchange(FlightDataReader& /*reader*/, FlightDataWriter& /*writer*/) {
    return UnimplementedError("DoExchange is not served here");
  }
  virtual Result<std::vector<ActionType>> ListActions() = 0;
};

}  // namespace mink::flight
