#pragma once
// Result<T>: a T or the Status that explains why there is none.

#include <cstdlib>
#include <optional>
#include <utility>

#include "base/status.h"

namespace mink {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = InternalError("Result constructed from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return Checked(); }
  const T& value() const& { return const_cast<Result*>(this)->Checked(); }
  T&& value() && { return std::move(Checked()); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(value()); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T other) const& { return ok() ? *value_ : std::move(other); }

 private:
  T& Checked() {
    if (!value_) std::abort();  // a bug in the caller: it did not check ok()
    return *value_;
  }
  std::optional<T> value_;
  Status status_;
};

}  // namespace mink

#define MINK_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define MINK_ASSIGN_OR_RETURN(lhs, expr) \
  MINK_ASSIGN_OR_RETURN_IMPL(MINK_STATUS_CONCAT(_mink_result_, __LINE__), lhs, expr)
