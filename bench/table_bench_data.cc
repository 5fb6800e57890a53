#include "table_bench_data.h"

#include <fmt/format.h>

#include <numeric>

#include "arrow_format/builder.h"

namespace mink::bench {
namespace {

constexpr int64_t kBaseMillis = 1'767'225'600'000;  // 2026-01-01 00:00:00 UTC

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

const char* const kServices[] = {"checkout", "cart",     "search",  "auth",
                                 "catalog",  "payments", "gateway", "profile"};
const char* const kPaths[] = {"/api/v1/orders", "/api/v1/cart/items", "/api/v2/search",
                              "/login",         "/api/v1/products",   "/api/v1/payments",
                              "/healthz",       "/api/v1/users/me"};
const char* const kVerbs[] = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};

struct LogRow {
  int64_t ts;
  std::string host;
  const char* service;
  const char* level;
  int64_t status;
  double latency_ms;
  int64_t bytes;
  int64_t trace_id;
  std::string message;
  double cpu;
};

LogRow MakeLogRow(int64_t i) {
  const uint64_t r = Mix(static_cast<uint64_t>(i));
  const uint64_t s = Mix(r);
  LogRow row;
  row.ts = kBaseMillis + i * 7 + static_cast<int64_t>(r % 5);
  row.host = fmt::format("web-{:03}.eu-west-1", (i * 7) % 200);
  row.service = kServices[r % 8];
  const uint64_t l = (r >> 8) % 100;
  row.level = l < 85 ? "INFO" : l < 95 ? "WARN" : l < 99 ? "ERROR" : "DEBUG";
  const uint64_t st = (r >> 16) % 100;
  row.status = st < 90 ? 200 : st < 95 ? 404 : st < 98 ? 302 : 500;
  row.latency_ms = static_cast<double>((r >> 24) % 250'000) / 100.0;
  row.bytes = static_cast<int64_t>((s >> 3) % 2'000'000);
  row.trace_id = static_cast<int64_t>(s >> 1);
  row.message = fmt::format("{} {}/{} user={} session={:08x} took {}ms", kVerbs[(s >> 40) % 6],
                            kPaths[(s >> 44) % 8], (s >> 20) % 100'000, (s >> 8) % 50'000,
                            static_cast<uint32_t>(r >> 32), (r >> 24) % 2500);
  row.cpu = static_cast<double>((s >> 48) % 10'000) / 10'000.0;
  return row;
}

// "YYYY-MM-DD HH:MM:SS.fff" of epoch milliseconds (days from civil, H. Hinnant).
std::string FormatMillis(int64_t ms) {
  int64_t days = ms / 86'400'000;
  int64_t rest = ms % 86'400'000;
  const int64_t z = days + 719468;
  const int64_t era = z / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}", y, m, d, rest / 3'600'000,
                     rest / 60'000 % 60, rest / 1000 % 60, rest % 1000);
}

}  // namespace

const std::vector<std::string>& LogTableColumns() {
  static const std::vector<std::string> columns = {"ts TIMESTAMP(3) NOT NULL",
                                                   "host STRING",
                                                   "service STRING",
                                                   "level STRING",
                                                   "status BIGINT",
                                                   "latency_ms DOUBLE",
                                                   "bytes BIGINT",
                                                   "trace_id BIGINT",
                                                   "message STRING",
                                                   "cpu DOUBLE"};
  return columns;
}

std::string LogTableColumnFlags() {
  std::string out;
  for (const auto& c : LogTableColumns()) out += " -C '" + c + "'";
  return out;
}

arrow::SchemaPtr LogTableSchema() {
  using arrow::Field;
  return std::make_shared<arrow::Schema>(std::vector<Field>{
      Field("ts", arrow::Timestamp(arrow::TimeUnit::kMilli), false), Field("host", arrow::Utf8()),
      Field("service", arrow::Utf8()), Field("level", arrow::Utf8()),
      Field("status", arrow::Int64()), Field("latency_ms", arrow::Float64()),
      Field("bytes", arrow::Int64()), Field("trace_id", arrow::Int64()),
      Field("message", arrow::Utf8()), Field("cpu", arrow::Float64())});
}

Result<arrow::RecordBatchPtr> LogRows(int64_t first, int64_t count) {
  arrow::TimestampBuilder ts(arrow::Timestamp(arrow::TimeUnit::kMilli));
  arrow::StringBuilder host, service, level, message;
  arrow::Int64Builder status, bytes, trace_id;
  arrow::DoubleBuilder latency, cpu;
  for (arrow::ArrayBuilder* b : std::initializer_list<arrow::ArrayBuilder*>{
           &ts, &host, &service, &level, &message, &status, &bytes, &trace_id, &latency, &cpu}) {
    b->Reserve(count);
  }
  for (int64_t i = first; i < first + count; ++i) {
    LogRow row = MakeLogRow(i);
    ts.Append(row.ts);
    MINK_RETURN_IF_ERROR(host.Append(row.host));
    MINK_RETURN_IF_ERROR(service.Append(row.service));
    MINK_RETURN_IF_ERROR(level.Append(row.level));
    status.Append(row.status);
    latency.Append(row.latency_ms);
    bytes.Append(row.bytes);
    trace_id.Append(row.trace_id);
    MINK_RETURN_IF_ERROR(message.Append(row.message));
    cpu.Append(row.cpu);
  }
  std::vector<arrow::ArrayDataPtr> columns;
  for (arrow::ArrayBuilder* b : std::initializer_list<arrow::ArrayBuilder*>{
           &ts, &host, &service, &level, &status, &latency, &bytes, &trace_id, &message, &cpu}) {
    MINK_ASSIGN_OR_RETURN(auto column, b->Finish());
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(LogTableSchema(), count, std::move(columns));
}

void LogRowsJson(int64_t first, int64_t count, std::string* out) {
  for (int64_t i = first; i < first + count; ++i) {
    LogRow row = MakeLogRow(i);
    fmt::format_to(std::back_inserter(*out),
                   "{{\"ts\":\"{}\",\"host\":\"{}\",\"service\":\"{}\",\"level\":\"{}\","
                   "\"status\":{},\"latency_ms\":{},\"bytes\":{},\"trace_id\":{},"
                   "\"message\":\"{}\",\"cpu\":{}}}\n",
                   FormatMillis(row.ts), row.host, row.service, row.level, row.status,
                   row.latency_ms, row.bytes, row.trace_id, row.message, row.cpu);
  }
}

const std::vector<std::string>& KeyedTableColumns() {
  static const std::vector<std::string> columns = {"id BIGINT NOT NULL", "name STRING",
                                                   "balance DOUBLE", "visits BIGINT",
                                                   "updated TIMESTAMP(3)"};
  return columns;
}

arrow::SchemaPtr KeyedTableSchema() {
  using arrow::Field;
  return std::make_shared<arrow::Schema>(
      std::vector<Field>{Field("id", arrow::Int64(), false), Field("name", arrow::Utf8()),
                         Field("balance", arrow::Float64()), Field("visits", arrow::Int64()),
                         Field("updated", arrow::Timestamp(arrow::TimeUnit::kMilli))});
}

Result<arrow::RecordBatchPtr> KeyedRows(int64_t first, int64_t count, int64_t key_count, int pass) {
  // id = (i * a + c) mod key_count with gcd(a, key_count) = 1: every key once, scrambled.
  int64_t a = static_cast<int64_t>(0x9E3779B1ull % static_cast<uint64_t>(key_count)) | 1;
  while (std::gcd(a, key_count) != 1) a += 2;
  const int64_t c = key_count / 3;
  arrow::Int64Builder id, visits;
  arrow::StringBuilder name;
  arrow::DoubleBuilder balance;
  arrow::TimestampBuilder updated(arrow::Timestamp(arrow::TimeUnit::kMilli));
  for (arrow::ArrayBuilder* b :
       std::initializer_list<arrow::ArrayBuilder*>{&id, &name, &balance, &visits, &updated}) {
    b->Reserve(count);
  }
  for (int64_t i = first; i < first + count; ++i) {
    const int64_t key =
        static_cast<int64_t>((static_cast<__int128>(i) * a + c) % static_cast<__int128>(key_count));
    const uint64_t r = Mix(static_cast<uint64_t>(key) * 31 + static_cast<uint64_t>(pass));
    id.Append(key);
    MINK_RETURN_IF_ERROR(name.Append(fmt::format("customer-{:07} {}", key, r % 1000)));
    balance.Append(static_cast<double>(r % 10'000'000) / 100.0);
    visits.Append(pass + 1);
    updated.Append(kBaseMillis + i + pass * 86'400'000LL);
  }
  std::vector<arrow::ArrayDataPtr> columns;
  for (arrow::ArrayBuilder* b :
       std::initializer_list<arrow::ArrayBuilder*>{&id, &name, &balance, &visits, &updated}) {
    MINK_ASSIGN_OR_RETURN(auto column, b->Finish());
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(KeyedTableSchema(), count, std::move(columns));
}

}  // namespace mink::bench
