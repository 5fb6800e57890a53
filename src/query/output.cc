#include "query/output.h"

#include "arrow_format/ipc.h"
#include "arrow_json/arrow_to_json.h"
#include "client/table_printer.h"

namespace mink::query {

Result<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "json") return OutputFormat::kJson;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "arrow") return OutputFormat::kArrow;
  return InvalidArgumentError("--format must be table, json, csv or arrow, not '" +
                              std::string(name) + "'");
}

std::string CsvField(std::string_view text) {
  bool quote = !text.empty() && (text.front() == ' ' || text.back() == ' ');
  for (char c : text) quote = quote || c == ',' || c == '"' || c == '\n' || c == '\r';
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

namespace {

bool IsExplain(const arrow::Schema& schema) {
  return schema.num_fields() == 2 && schema.field(0).name() == "explain_key" &&
         schema.field(1).name() == "explain_value";
}

}  // namespace

Result<PrintStats> PrintResult(ResultStream& result, OutputFormat format, bool row_count_footer,
                               const OutputSink& out) {
  PrintStats stats;
  const arrow::Schema& schema = *result.schema();
  std::string text;
  if (format == OutputFormat::kArrow) {
    arrow::StreamWriter writer(result.schema());
    writer.WriteSchema(&text);
    while (true) {
      MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result.Next());
      if (batch == nullptr) break;
      stats.rows += batch->num_rows();
      MINK_RETURN_IF_ERROR(writer.WriteBatch(*batch, &text));
      if (!out(text)) return stats;
      text.clear();
    }
    writer.WriteEnd(&text);
    out(text);
    return stats;
  }

  const bool explain = format == OutputFormat::kTable && IsExplain(schema);
  std::vector<std::string> headers;
  for (const auto& f : schema.fields()) headers.push_back(f.name());
  std::unique_ptr<client::TablePrinter> table;
  if (format == OutputFormat::kCsv) {
    for (size_t i = 0; i < headers.size(); ++i) text += (i ? "," : "") + CsvField(headers[i]);
    text += "\n";
  }
  std::string cell;
  while (true) {
    MINK_ASSIGN_OR_RETURN(arrow::RecordBatchPtr batch, result.Next());
    if (batch == nullptr) break;
    stats.rows += batch->num_rows();
    MINK_ASSIGN_OR_RETURN(arrow_json::RowFormatter rows, arrow_json::RowFormatter::Make(*batch));
    const auto& columns = rows.columns();
    if (format == OutputFormat::kTable && table == nullptr && !explain) {
      std::vector<bool> right;
      for (const auto& c : columns) right.push_back(c.is_numeric());
      table = std::make_unique<client::TablePrinter>(headers, right);
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      switch (format) {
        case OutputFormat::kJson:
          rows.AppendJsonRow(r, &text);
          text += '\n';
          break;
        case OutputFormat::kCsv:
          for (size_t c = 0; c < columns.size(); ++c) {
            if (c > 0) text += ',';
            if (columns[c].IsNull(r)) continue;
            cell.clear();
            columns[c].AppendText(r, &cell);
            text += CsvField(cell);
          }
          text += '\n';
          break;
        case OutputFormat::kTable:
          if (explain) {
            // The plan's text, as DuckDB draws it (the value is not escaped).
            const auto& values = batch->Column(1);
            const int32_t* offsets = values->buffers[1]->data_as<int32_t>();
            text.append(values->buffers[2]->data_as<char>() + offsets[r],
                        static_cast<size_t>(offsets[r + 1] - offsets[r]));
            text += '\n';
          } else {
            std::vector<std::string> cells;
            for (const auto& c : columns) {
              cell.clear();
              c.AppendText(r, &cell);
              cells.push_back(cell);
            }
            table->AddRow(std::move(cells));
          }
          break;
        case OutputFormat::kArrow:
          break;
      }
    }
    if (!text.empty()) {
      if (!out(text)) return stats;
      text.clear();
    }
  }
  if (format == OutputFormat::kTable && !explain) {
    if (table == nullptr) {
      table = std::make_unique<client::TablePrinter>(headers,
                                                     std::vector<bool>(headers.size(), false));
    }
    table->Render(&text);
    if (row_count_footer) {
      text += "(" + std::to_string(stats.rows) + (stats.rows == 1 ? " row)\n" : " rows)\n");
    }
  }
  if (!text.empty()) out(text);
  return stats;
}

}  // namespace mink::query

namespace mink::query {

std::string FormatScanReport(const ScanReport& r) {
  std::string columns;
  for (size_t i = 0; i < r.columns.size(); ++i) columns += (i ? ", " : "") + r.columns[i];
  auto plural = [](int64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
  };
  const std::string read = r.mode == "lookup"
                               ? plural(r.keys, "key", "keys")
                               : std::to_string(r.buckets_read) + " of " +
                                     plural(r.buckets_total, "bucket", "buckets");
  std::string lake_filters;
  for (size_t i = 0; i < r.lake_filters.size(); ++i) lake_filters += (i ? "; " : "") + r.lake_filters[i];
  if (!lake_filters.empty()) columns += "], lake filters [" + lake_filters;
  return r.table + " (" + r.mode + "): " + read + ", columns [" + columns + "], " +
         plural(r.batches, "batch", "batches") + ", " + plural(r.rows, "row", "rows") + ", " +
         plural(r.bytes, "byte", "bytes");
}

}  // namespace mink::query
