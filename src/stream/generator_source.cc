#include "stream/generator_source.h"

#include <algorithm>
#include <cctype>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"

namespace mink::stream {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

Result<GeneratorSource> GeneratorSource::Make(const std::vector<std::pair<std::string, std::string>>& options,
                                              int64_t start_ms) {
  int64_t rate = 1;
  for (const auto& [key, value] : options) {
    if (Lower(key) != "rows.per.second") {
      return InvalidArgumentError("GENERATOR has no option '" + key + "' (it takes rows.per.second)");
    }
    size_t used = 0;
    try {
      rate = std::stoll(value, &used);
    } catch (...) {
      used = 0;
    }
    if (used != value.size() || rate < 1 || rate > 10'000'000) {
      return InvalidArgumentError("GENERATOR's rows.per.second is '" + value + "', not a number in 1-10000000");
    }
  }
  return GeneratorSource(rate, start_ms);
}

arrow::SchemaPtr GeneratorSource::Schema() {
  static const arrow::SchemaPtr schema = std::make_shared<arrow::Schema>(std::vector<arrow::Field>{
      arrow::Field("seq", arrow::Int64(), false), arrow::Field("ts", arrow::Timestamp(arrow::TimeUnit::kMicro), false),
      arrow::Field("value", arrow::Float64(), false)});
  return schema;
}

int64_t GeneratorSource::DueMicros(int64_t seq) const {
  // start + seq / rate seconds, exactly for every rate that divides a second into microseconds.
  return start_ms_ * 1000 + (seq / rate_) * 1'000'000 + (seq % rate_) * 1'000'000 / rate_;
}

int64_t GeneratorSource::DueBy(int64_t now_ms) const {
  const int64_t elapsed_us = now_ms * 1000 - start_ms_ * 1000;
  if (elapsed_us < 0) return 0;
  auto n = static_cast<int64_t>(static_cast<__int128>(elapsed_us) * rate_ / 1'000'000) + 1;
  while (n > 0 && DueMicros(n - 1) > now_ms * 1000) --n;
  while (DueMicros(n) <= now_ms * 1000) ++n;
  return n;
}

Result<arrow::RecordBatchPtr> GeneratorSource::Poll(int64_t now_ms, int64_t max_rows) {
  int64_t n = 0;
  while (n < max_rows && DueMicros(next_seq_ + n) <= now_ms * 1000) ++n;
  if (n == 0) return arrow::RecordBatchPtr();
  MINK_ASSIGN_OR_RETURN(auto builder, arrow::RecordBatchBuilder::Make(Schema()));
  auto* seq = builder->GetFieldAs<arrow::Int64Builder>(0);
  auto* ts = builder->GetFieldAs<arrow::TimestampBuilder>(1);
  auto* value = builder->GetFieldAs<arrow::DoubleBuilder>(2);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t s = next_seq_ + i;
    seq->Append(s);
    ts->Append(DueMicros(s));
    // A value that looks random but depends on seq alone: a multiplicative hash, 0.0-99.9.
    value->Append(static_cast<double>((static_cast<uint64_t>(s) * 2654435761u) % 1000) / 10.0);
  }
  next_seq_ += n;
  return builder->Flush();
}

}  // namespace mink::stream
