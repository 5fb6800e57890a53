#include "stream/accumulator.h"

#include <algorithm>
#include <cstring>
#include <cctype>
#include <limits>
#include <string>

namespace mink::stream {

std::string AggregateName(AggregateKind kind) {
  switch (kind) {
    case AggregateKind::kCountRows:
    case AggregateKind::kCount: return "COUNT";
    case AggregateKind::kSum: return "SUM";
    case AggregateKind::kMin: return "MIN";
    case AggregateKind::kMax: return "MAX";
    case AggregateKind::kAvg: return "AVG";
    case AggregateKind::kCountDistinct: return "COUNT DISTINCT";
  }
  return "";
}

Result<AggregateKind> AggregateKindOf(std::string_view function, bool star, bool distinct) {
  std::string f(function);
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  if (f == "count" || f == "count_star") {
    if (star || f == "count_star") return AggregateKind::kCountRows;
    return distinct ? AggregateKind::kCountDistinct : AggregateKind::kCount;
  }
  if (distinct) return InvalidArgumentError("DISTINCT is supported with COUNT only, not " + f);
  if (f == "sum") return AggregateKind::kSum;
  if (f == "min") return AggregateKind::kMin;
  if (f == "max") return AggregateKind::kMax;
  if (f == "avg" || f == "mean") return AggregateKind::kAvg;
  return InvalidArgumentError("aggregate " + f +
                              " is not supported in a continuous query (COUNT, SUM, MIN, MAX, AVG, "
                              "COUNT DISTINCT)");
}

Status Accumulator::Add(const Scalar& value, int64_t weight) {
  const bool keeps_values =
      kind_ == AggregateKind::kMin || kind_ == AggregateKind::kMax || kind_ == AggregateKind::kCountDistinct;
  if (weight < 0) {
    if (rows_ + weight < 0) return FailedPreconditionError("a retraction of a row the aggregate does not hold");
    if (keeps_values && !value.is_null()) {
      auto it = values_.find(value);
      if (it == values_.end() || it->second + weight < 0) {
        return FailedPreconditionError("a retraction of " + value.ToString() + ", which the aggregate does not hold");
      }
    }
  }
  rows_ += weight;
  if (value.is_null()) return Status::Ok();
  count_ += weight;
  if (keeps_values) {
    auto& n = values_[value];
    n += weight;
    if (n == 0) values_.erase(value);
    return Status::Ok();
  }
  if (kind_ == AggregateKind::kSum || kind_ == AggregateKind::kAvg) {
    if (value.is_decimal()) RaiseScale(value.decimal_scale());
    __int128 unscaled = 0;
    if (value.UnscaledAt(std::max(sum_scale_, 0), &unscaled)) {
      int_sum_ += unscaled * weight;
    } else if (value.is_double()) {
      double_sum_ += value.double_value() * static_cast<double>(weight);
      doubles_ += weight;
    }
  }
  return Status::Ok();
}

void Accumulator::RaiseScale(int scale) {
  const int from = std::max(sum_scale_, 0);
  for (int i = from; i < scale; ++i) int_sum_ *= 10;
  sum_scale_ = std::max(sum_scale_, scale);
}

void Accumulator::Merge(const Accumulator& other) {
  rows_ += other.rows_;
  count_ += other.count_;
  RaiseScale(other.sum_scale_);
  __int128 theirs = other.int_sum_;
  for (int i = std::max(other.sum_scale_, 0); i < std::max(sum_scale_, 0); ++i) theirs *= 10;
  int_sum_ += theirs;
  double_sum_ += other.double_sum_;
  doubles_ += other.doubles_;
  for (const auto& [v, n] : other.values_) values_[v] += n;
}

void Accumulator::Encode(std::string* out) const {
  PutU8(out, static_cast<uint8_t>(kind_));
  PutI64(out, rows_);
  PutI64(out, count_);
  PutU64(out, static_cast<uint64_t>(static_cast<unsigned __int128>(int_sum_)));
  PutU64(out, static_cast<uint64_t>(static_cast<unsigned __int128>(int_sum_) >> 64));
  uint64_t bits;
  std::memcpy(&bits, &double_sum_, 8);
  PutU64(out, bits);
  PutI64(out, doubles_);
  PutU8(out, static_cast<uint8_t>(sum_scale_ + 1));
  PutU32(out, static_cast<uint32_t>(values_.size()));
  for (const auto& [v, n] : values_) {
    v.Encode(out);
    PutI64(out, n);
  }
}

bool Accumulator::Decode(ByteReader* in, AggregateKind kind, uint8_t version, Accumulator* out) {
  uint8_t k = 0, scale = 0;
  uint64_t low = 0, high = 0, bits = 0;
  uint32_t values = 0;
  Accumulator a(kind);
  if (!in->ReadU8(&k) || k != static_cast<uint8_t>(kind) || !in->ReadI64(&a.rows_) || !in->ReadI64(&a.count_) ||
      !in->ReadU64(&low) || !in->ReadU64(&high) || !in->ReadU64(&bits) || !in->ReadI64(&a.doubles_) ||
      (version >= 2 && !in->ReadU8(&scale)) || scale > 39 || !in->ReadU32(&values)) {
    return false;
  }
  a.sum_scale_ = static_cast<int>(scale) - 1;
  a.int_sum_ = static_cast<__int128>((static_cast<unsigned __int128>(high) << 64) | low);
  std::memcpy(&a.double_sum_, &bits, 8);
  for (uint32_t i = 0; i < values; ++i) {
    Scalar v;
    int64_t n = 0;
    if (!Scalar::Decode(in, &v) || !in->ReadI64(&n) || n <= 0) return false;
    a.values_[v] = n;
  }
  *out = std::move(a);
  return true;
}

Scalar Accumulator::Value() const {
  switch (kind_) {
    case AggregateKind::kCountRows: return Scalar::Int(rows_);
    case AggregateKind::kCount: return Scalar::Int(count_);
    case AggregateKind::kCountDistinct: return Scalar::Int(static_cast<int64_t>(values_.size()));
    case AggregateKind::kMin: return values_.empty() ? Scalar() : values_.begin()->first;
    case AggregateKind::kMax: return values_.empty() ? Scalar() : values_.rbegin()->first;
    case AggregateKind::kSum: {
      if (count_ == 0) return Scalar();
      if (doubles_ != 0) return Scalar::Double(ExactSum().AsDouble() + double_sum_);
      if (sum_scale_ >= 0) return ExactSum();
      if (int_sum_ > std::numeric_limits<int64_t>::max() || int_sum_ < std::numeric_limits<int64_t>::min()) {
        return Scalar::Double(static_cast<double>(int_sum_));
      }
      return Scalar::Int(static_cast<int64_t>(int_sum_));
    }
    case AggregateKind::kAvg:
      if (count_ == 0) return Scalar();
      return Scalar::Double((ExactSum().AsDouble() + double_sum_) / static_cast<double>(count_));
  }
  return Scalar();
}

}  // namespace mink::stream
