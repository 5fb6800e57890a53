#pragma once
// A fake FlightHandler for the protocol-layer tests: fixed flights, tickets that are small
// commands, and a record of what DoPut received.
//
// Tickets:  "count:N:size:S"  N messages with S-byte bodies (PatternBody), then OK
//           "fail-after:N"    N small messages, then NotFound("table x")
//           "forever"         small messages until the writer returns false
//           "idle"            writes nothing and polls IsCancelled until the call is over
// Actions:  "count" body N    N results "result-<i>"
//           "echo"            one result: the body
//           "status"          body "<code number>:<message>": returns that Status
//           "sleep"           body milliseconds: sleeps, then one result "slept"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/strings.h"
#include "flight/server/flight_handler.h"

namespace mink::flight::fake {

// Body i of a DoGet "count" stream: byte j is (i * 7 + j) % 251.
inline std::string PatternBody(int index, size_t size) {
  std::string body(size, '\0');
  for (size_t j = 0; j < size; ++j) body[j] = static_cast<char>((index * 7 + j) % 251);
  return body;
}

inline FlightInfo TableInfo(const std::string& table) {
  FlightInfo info;
  info.schema = "schema-of-" + table;
  info.descriptor = FlightDescriptor::Path({"db", table});
  info.endpoints.push_back(FlightEndpoint{"ticket-" + table + "-0", {"grpc://127.0.0.1:1"}, "b0"});
  info.endpoints.push_back(FlightEndpoint{"ticket-" + table + "-1", {}, ""});
  info.total_records = 42;
  info.total_bytes = 4200;
  info.ordered = true;
  info.app_metadata = "meta-" + table;
  return info;
}

class TestHandler final : public FlightHandler {
 public:
  Result<std::vector<FlightInfo>> ListFlights(const std::string& criteria) override {
    if (criteria == "bad") return InvalidArgumentError("bad criteria: bad");
    return std::vector<FlightInfo>{TableInfo("t1"), TableInfo("t2")};
  }

  Result<FlightInfo> GetFlightInfo(const FlightDescriptor& descriptor) override {
    if (descriptor.type == FlightDescriptor::Type::kCmd) {
      FlightInfo info = TableInfo("cmd");
      info.descriptor = descriptor;
      return info;
    }
    if (descriptor.path.size() == 2 && (descriptor.path[1] == "t1" || descriptor.path[1] == "t2")) {
      return TableInfo(descriptor.path[1]);
    }
    return NotFoundError("table x");
  }

  Result<std::string> GetSchema(const FlightDescriptor& descriptor) override {
    MINK_ASSIGN_OR_RETURN(FlightInfo info, GetFlightInfo(descriptor));
    return info.schema;
  }

  Status DoGet(const std::string& ticket, FlightDataWriter& writer) override {
    std::vector<std::string> parts = Split(ticket, ':');
    if (parts.size() == 4 && parts[0] == "count") {
      int count = static_cast<int>(ParseInt64(parts[1]).value_or(0));
      size_t size = ParseUint64(parts[3]).value_or(0);
      for (int i = 0; i < count; ++i) {
        FlightData data;
        data.data_header = "header-" + std::to_string(i);
        data.app_metadata = "meta-" + std::to_string(i);
        data.body = PatternBody(i, size);
        if (!writer.Write(std::move(data))) return CancelledError("client went away");
      }
      return Status::Ok();
    }
    if (parts.size() == 2 && parts[0] == "fail-after") {
      int count = static_cast<int>(ParseInt64(parts[1]).value_or(0));
      for (int i = 0; i < count; ++i) {
        FlightData data;
        data.data_header = "header-" + std::to_string(i);
        if (!writer.Write(std::move(data))) return CancelledError("client went away");
      }
      return NotFoundError("table x");
    }
    if (ticket == "forever") {
      MarkStarted();
      int64_t i = 0;
      while (true) {
        FlightData data;
        data.data_header = "tick-" + std::to_string(i++);
        data.body = std::string(1024, 'f');
        if (!writer.Write(std::move(data))) break;
      }
      MarkStopped();
      return Status::Ok();
    }
    if (ticket == "idle") {
      MarkStarted();
      while (!writer.IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      MarkStopped();
      return Status::Ok();
    }
    return NotFoundError("no such ticket: " + ticket);
  }

  Status DoPut(FlightDataReader& reader, PutResultWriter& writer) override {
    std::vector<FlightData> received;
    while (true) {
      FlightData data;
      MINK_ASSIGN_OR_RETURN(bool more, reader.Next(&data));
      if (!more) break;
      if (data.app_metadata == "reject") {
        return InvalidArgumentError("rejected message " + std::to_string(received.size()));
      }
      PutResult ack{"ack-" + std::to_string(received.size()) + "-" +
                    std::to_string(data.body.size())};
      received.push_back(std::move(data));
      if (!writer.Write(std::move(ack))) return CancelledError("client went away");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    puts_.push_back(std::move(received));
    return Status::Ok();
  }

  Status DoAction(const Action& action, ActionResultWriter& writer) override {
    if (action.type == "count") {
      int64_t n = ParseInt64(action.body).value_or(0);
      for (int64_t i = 0; i < n; ++i) {
        if (!writer.Write(ActionResult{"result-" + std::to_string(i)})) break;
      }
      return Status::Ok();
    }
    if (action.type == "echo") {
      writer.Write(ActionResult{action.body});
      return Status::Ok();
    }
    if (action.type == "status") {
      size_t colon = action.body.find(':');
      int64_t code = ParseInt64(action.body.substr(0, colon)).value_or(13);
      return Status(static_cast<StatusCode>(code), action.body.substr(colon + 1));
    }
    if (action.type == "sleep") {
      std::this_thread::sleep_for(std::chrono::milliseconds(ParseInt64(action.body).value_or(0)));
      writer.Write(ActionResult{"slept"});
      return Status::Ok();
    }
    return UnimplementedError("unknown action " + action.type);
  }

  Result<std::vector<ActionType>> ListActions() override {
    return std::vector<ActionType>{{"count", "N results"}, {"echo", "the body back"}};
  }

  // What each finished DoPut received, in order.
  std::vector<std::vector<FlightData>> Puts() {
    std::lock_guard<std::mutex> lock(mutex_);
    return puts_;
  }

  // Waits until a "forever"/"idle" DoGet has started (or stopped).
  bool WaitStarted(std::chrono::milliseconds timeout) { return WaitFor(&started_, timeout); }
  bool WaitStopped(std::chrono::milliseconds timeout) { return WaitFor(&stopped_, timeout); }

 private:
  void MarkStarted() { Mark(&started_); }
  void MarkStopped() { Mark(&stopped_); }
  void Mark(bool* flag) {
    std::lock_guard<std::mutex> lock(mutex_);
    *flag = true;
    cv_.notify_all();
  }
  bool WaitFor(bool* flag, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return *flag; });
  }

  std::mutex mutex_;
  std::condition_variable cv_;
  bool started_ = false;
  bool stopped_ = false;
  std::vector<std::vector<FlightData>> puts_;
};

}  // namespace mink::flight::fake
