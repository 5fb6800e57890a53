#include "stream/watermark.h"

#include <algorithm>

#include "stream/scalar.h"

#include "sql/quote.h"

namespace mink::stream {
namespace {

}  // namespace

Result<std::unique_ptr<SourceWatermark>> SourceWatermark::Make(sql::Database* db, const std::string& source,
                                                               const WatermarkDef& declared,
                                                               const arrow::SchemaPtr& schema) {
  MINK_ASSIGN_OR_RETURN(auto session, db->Connect());
  MINK_RETURN_IF_ERROR(session->UseTimeZone("UTC"));
  const std::string expression = declared.expression.empty() ? sql::QuoteIdentifier(declared.column) : declared.expression;
  std::string query = "SELECT CAST(max(epoch_us(" + expression + ")) AS BIGINT) FROM " + sql::QuoteIdentifier(source);
  // Checked once over no rows: the expression must be a timestamp of the source's columns.
  std::unique_ptr<SourceWatermark> w(new SourceWatermark(std::move(session), source, std::move(query)));
  MINK_RETURN_IF_ERROR(w->session_->RegisterBatches(source, schema, {}));
  auto checked = w->session_->Collect(w->sql_);
  if (!checked.ok()) {
    return InvalidArgumentError("the watermark of source " + source + " (" + expression +
                                "): " + checked.status().message());
  }
  return w;
}

Result<int64_t> SourceWatermark::Observe(const arrow::RecordBatchPtr& batch) {
  MINK_RETURN_IF_ERROR(session_->RegisterBatches(source_, batch->schema(), {batch}));
  MINK_ASSIGN_OR_RETURN(auto result, session_->Collect(sql_));
  for (const auto& r : result) {
    if (r->num_rows() == 0) continue;
    MINK_ASSIGN_OR_RETURN(auto highest, ScalarsOf(r->Column(0)));
    if (highest[0].is_int()) watermark_ = std::max(watermark_, highest[0].int_value());
  }
  return watermark_;
}

}  // namespace mink::stream
