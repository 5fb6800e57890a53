// The DuckDB facade: the database, sessions, results, prepared statements and Arrow views.
// Every DuckDB exception is caught here and becomes a Status.

// DuckDB's Arrow C structs (with their member functions) must be the ones declared; ours then
// see ARROW_C_DATA_INTERFACE and declare nothing.
#include "duckdb.hpp"
#include "duckdb/common/arrow/arrow_appender.hpp"
#include "duckdb/common/arrow/arrow_converter.hpp"
#include "duckdb/common/arrow/arrow_wrapper.hpp"
#include "duckdb/common/vector_operations/vector_operations.hpp"
#include "duckdb/function/table/arrow.hpp"
#include "duckdb/main/client_context.hpp"
#include "duckdb/main/prepared_statement_data.hpp"
#include "duckdb/parser/parser.hpp"
#include "duckdb/parser/statement/explain_statement.hpp"
// (blank line: keeps the order above under clang-format)

#include "sql/database.h"

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "arrow_format/array.h"
#include "arrow_format/c_bridge.h"

namespace mink::sql {
namespace {

using duckdb::LogicalType;
using duckdb::LogicalTypeId;

constexpr duckdb::idx_t kBatchRows = 32 * STANDARD_VECTOR_SIZE;

Status ErrorStatus(const duckdb::ErrorData& error) {
  std::string message = error.Message();
  using duckdb::ExceptionType;
  switch (error.Type()) {
    case ExceptionType::PARSER:
    case ExceptionType::SYNTAX:
    case ExceptionType::BINDER:
    case ExceptionType::CATALOG:
    case ExceptionType::CONVERSION:
    case ExceptionType::CONSTRAINT:
    case ExceptionType::INVALID_INPUT:
    case ExceptionType::OUT_OF_RANGE:
    case ExceptionType::DIVIDE_BY_ZERO:
    case ExceptionType::NOT_IMPLEMENTED:
    case ExceptionType::MISMATCH_TYPE:
    case ExceptionType::INVALID_TYPE:
    case ExceptionType::DEPENDENCY:
    case ExceptionType::SEQUENCE:
    case ExceptionType::PARAMETER_NOT_RESOLVED:
    case ExceptionType::PARAMETER_NOT_ALLOWED:
    case ExceptionType::INVALID_CONFIGURATION:
    case ExceptionType::TRANSACTION:
    case ExceptionType::MISSING_EXTENSION:
      return InvalidArgumentError(message);
    case ExceptionType::PERMISSION:
      // A node's refusal (the mink catalog's "mink: ..."), else the lockdown's.
      if (error.RawMessage().rfind("mink: ", 0) == 0) return PermissionDeniedError(error.RawMessage());
      return PermissionDeniedError("not allowed here (SQL reads only Mink's tables and streams): " +
                                   message);
    case ExceptionType::INTERRUPT:
      return CancelledError(message);
    case ExceptionType::IO:
    case ExceptionType::CONNECTION:
    case ExceptionType::NETWORK:
      return UnavailableError(message);
    default:
      return InternalError(message);
  }
}

Status ExceptionStatus(const std::exception& e) { return ErrorStatus(duckdb::ErrorData(e)); }

// A type Mink's Arrow can carry (see ResultStream).
LogicalType Exportable(const LogicalType& type) {
  switch (type.id()) {
    case LogicalTypeId::INTERVAL:
    case LogicalTypeId::ENUM:
    case LogicalTypeId::UUID:
    case LogicalTypeId::BIT:
    case LogicalTypeId::UNION:
    case LogicalTypeId::UHUGEINT:
    case LogicalTypeId::TIME_TZ:
    case LogicalTypeId::TIME_NS:
    case LogicalTypeId::BIGNUM:
    case LogicalTypeId::VARIANT:
    case LogicalTypeId::UNKNOWN:
    case LogicalTypeId::ANY:
    case LogicalTypeId::POINTER:
      return LogicalType::VARCHAR;
    case LogicalTypeId::LIST:
      return LogicalType::LIST(Exportable(duckdb::ListType::GetChildType(type)));
    case LogicalTypeId::ARRAY:
      return LogicalType::LIST(Exportable(duckdb::ArrayType::GetChildType(type)));
    case LogicalTypeId::MAP:
      return LogicalType::MAP(Exportable(duckdb::MapType::KeyType(type)),
                              Exportable(duckdb::MapType::ValueType(type)));
    case LogicalTypeId::STRUCT: {
      duckdb::child_list_t<LogicalType> children;
      for (const auto& [name, child] : duckdb::StructType::GetChildTypes(type)) {
        children.emplace_back(name, Exportable(child));
      }
      return LogicalType::STRUCT(std::move(children));
    }
    default:
      return type;
  }
}

Result<arrow::SchemaPtr> ArrowSchemaOf(const duckdb::vector<LogicalType>& types,
                                       const duckdb::vector<std::string>& names,
                                       duckdb::ClientProperties& properties) {
  ArrowSchema c_schema;
  duckdb::ArrowConverter::ToArrowSchema(&c_schema, types, names, properties);
  return arrow::ImportSchema(&c_schema);
}

// Interrupts a statement that runs past its time limit: a thread that waits for the deadline or
// the statement's end (the end of its result), whichever comes first.
class Deadline {
 public:
  static std::shared_ptr<Deadline> Start(duckdb::shared_ptr<duckdb::ClientContext> context,
                                         const StatementTimeout& timeout) {
    if (timeout.limit.count() <= 0) return nullptr;
    auto d = std::shared_ptr<Deadline>(new Deadline(timeout));
    d->thread_ = std::thread([d = d.get(), context = std::move(context)] {
      std::unique_lock<std::mutex> lock(d->mutex_);
      if (d->cv_.wait_for(lock, d->timeout_.limit, [d] { return d->ended_; })) return;
      d->expired_ = true;
      context->Interrupt();
    });
    return d;
  }
  ~Deadline() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ended_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // The error of an interrupted statement: the limit's when it was this deadline's doing.
  Status Explain(Status failure) const {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!expired_ || failure.code() != StatusCode::kCancelled) return failure;
    return DeadlineExceededError("the statement ran longer than " +
                                 std::to_string(timeout_.limit.count()) + " ms (" +
                                 timeout_.setting + ") and was stopped");
  }

 private:
  explicit Deadline(const StatementTimeout& timeout) : timeout_(timeout) {}
  const StatementTimeout timeout_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  bool ended_ = false;
  bool expired_ = false;
  std::thread thread_;
};

// A status through the statement's deadline, if it has one.
Status Explained(const std::shared_ptr<Deadline>& deadline, Status s) {
  return deadline == nullptr ? s : deadline->Explain(std::move(s));
}

class ResultImpl : public ResultStream {
 public:
  static Result<std::unique_ptr<ResultStream>> Make(duckdb::shared_ptr<duckdb::ClientContext> context,
                                                    duckdb::unique_ptr<duckdb::QueryResult> result,
                                                    std::shared_ptr<Deadline> deadline) {
    if (result->HasError()) return Explained(deadline, ErrorStatus(result->GetErrorObject()));
    auto out = std::unique_ptr<ResultImpl>(new ResultImpl());
    out->deadline_ = std::move(deadline);
    out->context_ = std::move(context);
    out->properties_ = result->client_properties;
    out->returns_rows_ =
        result->properties.return_type == duckdb::StatementReturnType::QUERY_RESULT;
    for (const auto& t : result->types) {
      out->export_types_.push_back(Exportable(t));
      out->needs_cast_ = out->needs_cast_ || out->export_types_.back() != t;
    }
    out->types_ = result->types;
    MINK_ASSIGN_OR_RETURN(out->schema_,
                          ArrowSchemaOf(out->export_types_, result->names, out->properties_));
    out->result_ = std::move(result);
    return std::unique_ptr<ResultStream>(std::move(out));
  }

  const arrow::SchemaPtr& schema() const override { return schema_; }
  bool returns_rows() const override { return returns_rows_; }

  Result<arrow::RecordBatchPtr> Next() override {
    if (done_) return arrow::RecordBatchPtr();
    auto batch = Fetch();
    if (!batch.ok()) return Explained(deadline_, batch.status());
    if (done_) deadline_.reset();  // the statement ended: its deadline no longer runs
    return batch;
  }

 private:
  ResultImpl() = default;
  Result<arrow::RecordBatchPtr> Fetch() {
    try {
      duckdb::ArrowAppender appender(export_types_, kBatchRows, properties_, {});
      while (appender.RowCount() < kBatchRows) {
        duckdb::ErrorData error;
        duckdb::unique_ptr<duckdb::DataChunk> chunk;
        if (!result_->TryFetch(chunk, error)) return ErrorStatus(error);
        if (!chunk || chunk->size() == 0) {
          done_ = true;
          break;
        }
        duckdb::idx_t n = chunk->size();
        if (needs_cast_) {
          duckdb::DataChunk cast;
          cast.Initialize(duckdb::Allocator::DefaultAllocator(), export_types_);
          for (duckdb::idx_t i = 0; i < chunk->ColumnCount(); ++i) {
            if (export_types_[i] == types_[i]) {
              cast.data[i].Reference(chunk->data[i]);
            } else {
              duckdb::VectorOperations::Cast(*context_, chunk->data[i], cast.data[i], n);
            }
          }
          cast.SetCardinality(n);
          appender.Append(cast, 0, n, n);
        } else {
          appender.Append(*chunk, 0, n, n);
        }
      }
      if (appender.RowCount() == 0) return arrow::RecordBatchPtr();
      int64_t rows = static_cast<int64_t>(appender.RowCount());
      ArrowArray array = appender.Finalize();
      MINK_ASSIGN_OR_RETURN(arrow::ArrayDataPtr data,
                            arrow::ImportArray(&array, arrow::Struct(schema_->fields())));
      return arrow::RecordBatch::Make(schema_, rows, data->children);
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }

  duckdb::shared_ptr<duckdb::ClientContext> context_;
  std::shared_ptr<Deadline> deadline_;  // declared before result_: outlives the fetches
  duckdb::unique_ptr<duckdb::QueryResult> result_;
  duckdb::ClientProperties properties_;
  duckdb::vector<LogicalType> types_;
  duckdb::vector<LogicalType> export_types_;
  bool needs_cast_ = false;
  bool returns_rows_ = true;
  bool done_ = false;
  arrow::SchemaPtr schema_;
};

// Value `row` of an Arrow column as a DuckDB value (parameters of prepared statements).
Result<duckdb::Value> ToValue(const arrow::ArrayDataPtr& data, int64_t row) {
  using arrow::TypeId;
  const arrow::DataType& type = *data->type;
  if (data->null_count > 0 && data->buffers[0] != nullptr &&
      !((data->buffers[0]->data()[row / 8] >> (row % 8)) & 1)) {
    return duckdb::Value();
  }
  auto fixed = [&](auto tag) {
    using T = decltype(tag);
    return data->buffers[1]->data_as<T>()[row];
  };
  switch (type.id()) {
    case TypeId::kNull:
      return duckdb::Value();
    case TypeId::kBool:
      return duckdb::Value::BOOLEAN((data->buffers[1]->data()[row / 8] >> (row % 8)) & 1);
    case TypeId::kInt8:
      return duckdb::Value::TINYINT(fixed(int8_t{}));
    case TypeId::kInt16:
      return duckdb::Value::SMALLINT(fixed(int16_t{}));
    case TypeId::kInt32:
      return duckdb::Value::INTEGER(fixed(int32_t{}));
    case TypeId::kInt64:
      return duckdb::Value::BIGINT(fixed(int64_t{}));
    case TypeId::kUInt8:
      return duckdb::Value::UTINYINT(fixed(uint8_t{}));
    case TypeId::kUInt16:
      return duckdb::Value::USMALLINT(fixed(uint16_t{}));
    case TypeId::kUInt32:
      return duckdb::Value::UINTEGER(fixed(uint32_t{}));
    case TypeId::kUInt64:
      return duckdb::Value::UBIGINT(fixed(uint64_t{}));
    case TypeId::kFloat32:
      return duckdb::Value::FLOAT(fixed(float{}));
    case TypeId::kFloat64:
      return duckdb::Value::DOUBLE(fixed(double{}));
    case TypeId::kDate32:
      return duckdb::Value::DATE(duckdb::date_t(fixed(int32_t{})));
    case TypeId::kUtf8:
    case TypeId::kBinary: {
      const int32_t* offsets = data->buffers[1]->data_as<int32_t>();
      std::string bytes(data->buffers[2]->data_as<char>() + offsets[row],
                        static_cast<size_t>(offsets[row + 1] - offsets[row]));
      if (type.id() == TypeId::kUtf8) return duckdb::Value(bytes);
      return duckdb::Value::BLOB_RAW(bytes);
    }
    case TypeId::kTimestamp: {
      int64_t v = fixed(int64_t{});
      duckdb::Value ts;
      switch (type.unit()) {
        case arrow::TimeUnit::kSecond:
          ts = duckdb::Value::TIMESTAMPSEC(duckdb::timestamp_sec_t(v));
          break;
        case arrow::TimeUnit::kMilli:
          ts = duckdb::Value::TIMESTAMPMS(duckdb::timestamp_ms_t(v));
          break;
        case arrow::TimeUnit::kMicro:
          ts = duckdb::Value::TIMESTAMP(duckdb::timestamp_t(v));
          break;
        case arrow::TimeUnit::kNano:
          ts = duckdb::Value::TIMESTAMPNS(duckdb::timestamp_ns_t(v));
          break;
      }
      if (type.timezone().empty()) return ts;
      return ts.DefaultCastAs(LogicalType::TIMESTAMP).DefaultCastAs(LogicalType::TIMESTAMP_TZ);
    }
    case TypeId::kDecimal128: {
      const uint8_t* p = data->buffers[1]->data() + row * 16;
      duckdb::hugeint_t h;
      std::memcpy(&h.lower, p, 8);
      std::memcpy(&h.upper, p + 8, 8);
      return duckdb::Value::DECIMAL(h, static_cast<uint8_t>(type.precision()),
                                    static_cast<uint8_t>(type.scale()));
    }
    default:
      return UnimplementedError("parameter of type " + type.ToString() + " is not supported");
  }
}

class PreparedImpl : public PreparedStatement {
 public:
  static Result<std::unique_ptr<PreparedStatement>> Make(
      duckdb::shared_ptr<duckdb::ClientContext> context,
      duckdb::unique_ptr<duckdb::PreparedStatement> prepared, const StatementTimeout& timeout) {
    if (prepared->HasError()) return ErrorStatus(prepared->error);
    auto out = std::unique_ptr<PreparedImpl>(new PreparedImpl());
    out->timeout_ = timeout;
    duckdb::vector<LogicalType> types;
    for (const auto& t : prepared->GetTypes()) types.push_back(Exportable(t));
    duckdb::ClientProperties properties = context->GetClientProperties();
    MINK_ASSIGN_OR_RETURN(out->result_schema_,
                          ArrowSchemaOf(types, prepared->GetNames(), properties));
    auto expected = prepared->GetExpectedParameterTypes();
    size_t n = prepared->named_param_map.size();
    duckdb::vector<LogicalType> parameter_types(n, LogicalType::VARCHAR);
    duckdb::vector<std::string> parameter_names;
    for (size_t i = 0; i < n; ++i) parameter_names.push_back("$" + std::to_string(i + 1));
    for (const auto& [name, index] : prepared->named_param_map) {
      auto it = expected.find(name);
      if (index >= 1 && index <= n && it != expected.end()) {
        parameter_types[index - 1] = Exportable(it->second);
      }
    }
    MINK_ASSIGN_OR_RETURN(out->parameter_schema_,
                          ArrowSchemaOf(parameter_types, parameter_names, properties));
    out->context_ = std::move(context);
    out->prepared_ = std::move(prepared);
    return std::unique_ptr<PreparedStatement>(std::move(out));
  }

  const arrow::SchemaPtr& result_schema() const override { return result_schema_; }
  const arrow::SchemaPtr& parameter_schema() const override { return parameter_schema_; }

  Result<std::unique_ptr<ResultStream>> Execute(const arrow::RecordBatchPtr& parameters,
                                                int64_t row) override {
    duckdb::vector<duckdb::Value> values;
    if (parameters != nullptr) {
      if (row < 0 || row >= parameters->num_rows()) {
        return InvalidArgumentError("parameter row " + std::to_string(row) + " does not exist");
      }
      for (int i = 0; i < parameters->num_columns(); ++i) {
        MINK_ASSIGN_OR_RETURN(duckdb::Value v, ToValue(parameters->Column(i), row));
        values.push_back(std::move(v));
      }
    }
    auto deadline = Deadline::Start(context_, timeout_);
    try {
      auto pending = prepared_->PendingQuery(values, true);
      if (pending->HasError()) return Explained(deadline, ErrorStatus(pending->GetErrorObject()));
      return ResultImpl::Make(context_, pending->Execute(), deadline);
    } catch (const std::exception& e) {
      return Explained(deadline, ExceptionStatus(e));
    }
  }

 private:
  PreparedImpl() = default;
  StatementTimeout timeout_;
  duckdb::shared_ptr<duckdb::ClientContext> context_;
  duckdb::unique_ptr<duckdb::PreparedStatement> prepared_;
  arrow::SchemaPtr result_schema_;
  arrow::SchemaPtr parameter_schema_;
};


// Batches read by DuckDB's arrow_scan through the Arrow C stream interface: the view's factory.
class BatchSource {
 public:
  BatchSource(arrow::SchemaPtr schema, std::vector<arrow::RecordBatchPtr> batches)
      : schema_(std::move(schema)), batches_(std::move(batches)) {}

  // arrow_scan's stream factory: a new stream over every batch (DuckDB may scan twice).
  static duckdb::unique_ptr<duckdb::ArrowArrayStreamWrapper> Produce(
      uintptr_t factory, duckdb::ArrowStreamParameters& /*parameters*/) {
    auto wrapper = duckdb::make_uniq<duckdb::ArrowArrayStreamWrapper>();
    auto* stream = &wrapper->arrow_array_stream;
    stream->private_data = new Cursor{reinterpret_cast<BatchSource*>(factory), 0, {}};
    stream->get_schema = &StreamSchema;
    stream->get_next = &StreamNext;
    stream->get_last_error = &StreamError;
    stream->release = &StreamRelease;
    wrapper->number_of_rows = -1;
    return wrapper;
  }
  static void GetSchema(ArrowArrayStream* factory, ArrowSchema& out) {
    auto* self = reinterpret_cast<BatchSource*>(factory);
    if (!arrow::ExportSchema(*self->schema_, &out).ok()) out.release = nullptr;
  }

 private:
  struct Cursor {
    BatchSource* source;
    size_t next;
    std::string error;
  };
  static int StreamSchema(ArrowArrayStream* stream, ArrowSchema* out) {
    auto* c = static_cast<Cursor*>(stream->private_data);
    Status s = arrow::ExportSchema(*c->source->schema_, out);
    if (!s.ok()) c->error = s.message();
    return s.ok() ? 0 : EINVAL;
  }
  static int StreamNext(ArrowArrayStream* stream, ArrowArray* out) {
    auto* c = static_cast<Cursor*>(stream->private_data);
    if (c->next >= c->source->batches_.size()) {
      out->release = nullptr;  // the end
      return 0;
    }
    ArrowSchema ignored;
    Status s = arrow::ExportRecordBatch(c->source->batches_[c->next++], out, &ignored);
    if (ignored.release != nullptr) ignored.release(&ignored);
    if (!s.ok()) c->error = s.message();
    return s.ok() ? 0 : EINVAL;
  }
  static const char* StreamError(ArrowArrayStream* stream) {
    return static_cast<Cursor*>(stream->private_data)->error.c_str();
  }
  static void StreamRelease(ArrowArrayStream* stream) {
    delete static_cast<Cursor*>(stream->private_data);
    stream->release = nullptr;
  }

  arrow::SchemaPtr schema_;
  std::vector<arrow::RecordBatchPtr> batches_;
};

class SessionImpl : public Session {
 public:
  explicit SessionImpl(duckdb::DuckDB& db) : connection_(db) {}

  duckdb::ClientContext& context() { return *connection_.context; }

  Result<std::vector<std::string>> SplitStatements(const std::string& sql) override {
    try {
      // Split at the ';' tokens of DuckDB's own tokenizer (quotes and comments are respected);
      // ExtractStatements' statement locations are not usable for this in 1.4.
      std::vector<std::string> out;
      size_t begin = 0;
      bool has_tokens = false;
      for (const auto& token : duckdb::Parser::Tokenize(sql)) {
        if (token.type == duckdb::SimplifiedTokenType::SIMPLIFIED_TOKEN_OPERATOR &&
            token.start < sql.size() && sql[token.start] == ';') {
          if (has_tokens) out.push_back(sql.substr(begin, token.start - begin));
          begin = token.start + 1;
          has_tokens = false;
        } else {
          has_tokens = true;
        }
      }
      if (has_tokens) out.push_back(sql.substr(begin));
      return out;
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }

  Result<std::unique_ptr<ResultStream>> Execute(const std::string& sql) override {
    auto deadline = Deadline::Start(connection_.context, timeout_);
    try {
      auto statements = connection_.ExtractStatements(sql);
      if (statements.empty()) return InvalidArgumentError("no SQL statement");
      for (size_t i = 0; i + 1 < statements.size(); ++i) {
        auto result = connection_.Query(std::move(statements[i]));
        if (result->HasError()) return Explained(deadline, ErrorStatus(result->GetErrorObject()));
      }
      auto pending = connection_.PendingQuery(std::move(statements.back()), true);
      if (pending->HasError()) return Explained(deadline, ErrorStatus(pending->GetErrorObject()));
      return ResultImpl::Make(connection_.context, pending->Execute(), deadline);
    } catch (const std::exception& e) {
      return Explained(deadline, ExceptionStatus(e));
    }
  }

  Result<std::unique_ptr<PreparedStatement>> Prepare(const std::string& sql) override {
    try {
      return PreparedImpl::Make(connection_.context, connection_.Prepare(sql), timeout_);
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }

  void Interrupt() override { connection_.Interrupt(); }
  void SetTimeout(const StatementTimeout& timeout) override { timeout_ = timeout; }

  Status CheckQueriesOnly(const std::string& sql) override {
    try {
      for (const auto& statement : connection_.ExtractStatements(sql)) {
        auto type = statement->type;
        if (type == duckdb::StatementType::EXPLAIN_STATEMENT) {
          type = static_cast<duckdb::ExplainStatement&>(*statement).stmt->type;
        }
        if (type != duckdb::StatementType::SELECT_STATEMENT) {
          return PermissionDeniedError("only queries (SELECT) run here, not " +
                                       duckdb::StatementTypeToString(statement->type) + " statements");
        }
      }
      return Status::Ok();
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }

  Status RegisterBatches(const std::string& name, arrow::SchemaPtr schema,
                         std::vector<arrow::RecordBatchPtr> batches) override {
    try {
      auto source = std::make_unique<BatchSource>(std::move(schema), std::move(batches));
      // arrow_scan_dumb: DuckDB projects and filters the rows itself. (arrow_scan would push its
      // projection and filters into the producer, which hands over whole batches.)
      auto relation = connection_.TableFunction(
          "arrow_scan_dumb",
          {duckdb::Value::POINTER(reinterpret_cast<uintptr_t>(source.get())),
           duckdb::Value::POINTER(reinterpret_cast<uintptr_t>(&BatchSource::Produce)),
           duckdb::Value::POINTER(reinterpret_cast<uintptr_t>(&BatchSource::GetSchema))});
      relation->CreateView(name, true, true);
      sources_[name] = std::move(source);
      return Status::Ok();
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }

 private:
  StatementTimeout timeout_;
  duckdb::Connection connection_;
  std::map<std::string, std::unique_ptr<BatchSource>> sources_;  // the registered views' data
};

class DatabaseImpl : public Database {
 public:
  Result<std::unique_ptr<Session>> Connect(
      const std::function<void(duckdb::ClientContext&)>& prepare) override {
    try {
      auto session = std::make_unique<SessionImpl>(*db_);
      if (prepare) prepare(session->context());
      return std::unique_ptr<Session>(std::move(session));
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
  }
  Status LockDown(const SqlLimits& limits) override {
    std::vector<std::string> settings;
    if (limits.memory_bytes > 0) {
      settings.push_back("SET memory_limit = '" + std::to_string(limits.memory_bytes) + "B'");
    }
    if (limits.threads > 0) settings.push_back("SET threads = " + std::to_string(limits.threads));
    settings.push_back("SET max_temp_directory_size = '" + std::to_string(limits.spill_bytes) + "B'");
    if (!limits.time_zone.empty()) {
      settings.push_back("SET GLOBAL TimeZone = '" + limits.time_zone + "'");
    }
    if (!limits.allowed_directories.empty()) {
      std::string list;
      for (const auto& d : limits.allowed_directories) {
        list += (list.empty() ? "'" : ", '") + duckdb::StringUtil::Replace(d, "'", "''") + "'";
      }
      settings.push_back("SET allowed_directories = [" + list + "]");
    }
    settings.push_back("SET allow_community_extensions = false");
    if (!limits.local_files) settings.push_back("SET enable_external_access = false");
    settings.push_back("SET lock_configuration = true");  // last: nothing can undo the rest
    try {
      duckdb::Connection connection(*db_);
      for (const auto& sql : settings) {
        auto result = connection.Query(sql);
        if (result->HasError()) return ErrorStatus(result->GetErrorObject()).WithContext(sql);
      }
    } catch (const std::exception& e) {
      return ExceptionStatus(e);
    }
    return Status::Ok();
  }
  duckdb::DuckDB& duckdb() override { return *db_; }

  duckdb::unique_ptr<duckdb::DuckDB> db_;
};

}  // namespace

std::string LoadedDuckDBVersion() {
  return std::string(duckdb::DuckDB::LibraryVersion()) + " " + duckdb::DuckDB::SourceID();
}

Status Session::Run(const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(auto result, Execute(sql));
  while (true) {
    MINK_ASSIGN_OR_RETURN(auto batch, result->Next());
    if (batch == nullptr) return Status::Ok();
  }
}

Status Session::UseTimeZone(const std::string& zone) {
  MINK_ASSIGN_OR_RETURN(auto rows, Collect("SELECT current_setting('TimeZone') = '" + zone + "'"));
  if (!rows.empty() && rows[0]->num_rows() == 1) {
    const auto& column = rows[0]->Column(0);
    if ((column->buffers[1]->data()[0] & 1) != 0) return Status::Ok();
  }
  return Run("SET TimeZone = '" + zone + "'");
}

Result<std::vector<arrow::RecordBatchPtr>> Session::Collect(const std::string& sql) {
  MINK_ASSIGN_OR_RETURN(auto result, Execute(sql));
  std::vector<arrow::RecordBatchPtr> batches;
  while (true) {
    MINK_ASSIGN_OR_RETURN(auto batch, result->Next());
    if (batch == nullptr) return batches;
    batches.push_back(std::move(batch));
  }
}

Result<std::unique_ptr<Database>> Database::Open(const DatabaseOptions& options) {
  std::string source_id = duckdb::DuckDB::SourceID();
  if (source_id.rfind(kDuckDBSourceId, 0) != 0) {
    return FailedPreconditionError(std::string("Mink is built for DuckDB ") + kDuckDBVersion +
                                   " (source id " + kDuckDBSourceId + ") but loaded " +
                                   LoadedDuckDBVersion() + "; run scripts/setup");
  }
  auto database = std::make_unique<DatabaseImpl>();
  try {
    duckdb::DBConfig config;
    // No network here and no surprises: extensions are never downloaded or loaded implicitly.
    config.options.autoinstall_known_extensions = false;
    config.options.autoload_known_extensions = false;
    if (options.threads > 0) {
      config.SetOptionByName("threads", duckdb::Value::BIGINT(options.threads));
    }
    if (options.configure) options.configure(config);
    database->db_ = duckdb::make_uniq<duckdb::DuckDB>(nullptr, &config);
  } catch (const std::exception& e) {
    return ExceptionStatus(e);
  }
  return std::unique_ptr<Database>(std::move(database));
}

}  // namespace mink::sql
