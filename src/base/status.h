#pragma once
// Status: the error value of every Mink API. OK carries nothing; an error carries a canonical code
// (the gRPC set) and a message that names what was wrong. No exceptions cross Mink APIs.

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace mink {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,  // conflicts and fencing
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,  // retryable
  kDataLoss = 15,     // corruption
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message);

  static Status Ok() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  StatusCode code() const { return state_ ? state_->code : StatusCode::kOk; }
  const std::string& message() const;
  std::string ToString() const;

  // Returns a copy with `context: ` put in front of the message.
  Status WithContext(std::string_view context) const;

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

 private:
  struct State {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const State> state_;  // shared: copying a Status is cheap
};

std::ostream& operator<<(std::ostream& os, const Status& status);

Status CancelledError(std::string message);
Status UnknownError(std::string message);
Status InvalidArgumentError(std::string message);
Status DeadlineExceededError(std::string message);
Status NotFoundError(std::string message);
Status AlreadyExistsError(std::string message);
Status PermissionDeniedError(std::string message);
Status ResourceExhaustedError(std::string message);
Status FailedPreconditionError(std::string message);
Status AbortedError(std::string message);
Status OutOfRangeError(std::string message);
Status UnimplementedError(std::string message);
Status InternalError(std::string message);
Status UnavailableError(std::string message);
Status DataLossError(std::string message);

inline bool IsNotFound(const Status& s) { return s.code() == StatusCode::kNotFound; }
inline bool IsAborted(const Status& s) { return s.code() == StatusCode::kAborted; }
inline bool IsUnavailable(const Status& s) { return s.code() == StatusCode::kUnavailable; }
inline bool IsDataLoss(const Status& s) { return s.code() == StatusCode::kDataLoss; }

// A change that may or may not have taken effect: its commit was sent, the answer was lost, and
// the outcome could not be learnt before the deadline. Unavailable (retryable: an idempotent
// retry is answered correctly) with "outcome unknown" in its text, which crosses every protocol
// (Flight's UNAVAILABLE message, the CLI's output) and survives added context. Whoever gets one
// must not undo the change's side effects (delete the object it committed, say): the log may
// reference them.
Status OutcomeUnknownError(std::string message);
bool IsOutcomeUnknown(const Status& s);

}  // namespace mink

#define MINK_STATUS_CONCAT_INNER(a, b) a##b
#define MINK_STATUS_CONCAT(a, b) MINK_STATUS_CONCAT_INNER(a, b)

#define MINK_RETURN_IF_ERROR(expr)                  \
  do {                                              \
    ::mink::Status _mink_status = (expr);           \
    if (!_mink_status.ok()) return _mink_status;    \
  } while (0)
