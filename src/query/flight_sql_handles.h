#pragma once
// The handles `mink-query serve` hands out: statement tickets (each read once) and prepared
// statements. A handle belongs to the caller that made it (Callers' key): to any other caller it
// is unknown, so one caller cannot run, read or close another's. At most kMaxHandles of each kind
// are kept (the oldest are dropped).

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "arrow_format/record_batch.h"
#include "base/result.h"
#include "query/engine.h"

namespace mink::query {

struct PreparedQuery {
  std::mutex mu;  // one execution at a time
  std::string sql;
  std::unique_ptr<Session> session;  // declared before statement: destroyed after it
  std::unique_ptr<PreparedStatement> statement;
  arrow::RecordBatchPtr parameters;  // bound with DoPut
};

class FlightSqlHandles {
 public:
  static constexpr size_t kMaxHandles = 1024;  // open statements and prepared statements, each

  std::string AddStatement(const std::string& owner, std::string sql);
  // The statement's SQL, once; NotFound for a handle `owner` did not make or already read.
  Result<std::string> TakeStatement(const std::string& owner, const std::string& handle);

  std::string AddPrepared(const std::string& owner, std::shared_ptr<PreparedQuery> prepared);
  Result<std::shared_ptr<PreparedQuery>> FindPrepared(const std::string& owner, const std::string& handle);
  Status ClosePrepared(const std::string& owner, const std::string& handle);

 private:
  template <typename T>
  struct Owned {
    std::string owner;
    T value;
  };
  std::mutex mu_;
  std::map<std::string, Owned<std::string>> statements_;  // handle -> SQL
  std::deque<std::string> statement_order_;
  std::map<std::string, Owned<std::shared_ptr<PreparedQuery>>> prepared_;
  std::deque<std::string> prepared_order_;
};

}  // namespace mink::query
