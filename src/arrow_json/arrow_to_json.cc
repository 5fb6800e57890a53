// Arrow -> JSON and table cells (see arrow_to_json.h for the output forms).

#include "arrow_json/arrow_to_json.h"

#include <cstring>

#include "arrow_format/array.h"
#include "arrow_format/bit_util.h"
#include "base/strings.h"
#include "arrow_json/json_string.h"
#include "arrow_json/numbers.h"
#include "arrow_json/temporal.h"
#include "table/arrow_rows.h"

namespace mink::arrow_json {
namespace {

using arrow::TypeId;
using table::DigitsOf;

template <typename T>
T Load(const uint8_t* values, int64_t i) {
  T v;
  std::memcpy(&v, values + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void AppendInteger(T v, std::string* out) {
  out->append(std::to_string(v));
}

// Like a JSON string body, but only control characters are escaped (for table cells).
void AppendDisplayText(std::string_view s, std::string* out) {
  std::string quoted = JsonQuote(s);  // also replaces invalid UTF-8
  std::string_view body(quoted.data() + 1, quoted.size() - 2);
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size() && (body[i + 1] == '"' || body[i + 1] == '\\')) {
      out->push_back(body[++i]);
    } else {
      out->push_back(body[i]);
    }
  }
}

}  // namespace

Result<ColumnFormatter> ColumnFormatter::Make(arrow::ArrayDataPtr data) {
  ColumnFormatter f;
  const arrow::DataType& type = *data->type;
  f.id_ = type.id();
  if (!data->buffers.empty() && data->buffers[0] != nullptr) f.validity_ = data->buffers[0]->data();
  switch (f.id_) {
    case TypeId::kNull:
      break;
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
    case TypeId::kDate32:
      f.values_ = data->buffers[1]->data();
      break;
    case TypeId::kTime32:
    case TypeId::kTime64:
      f.values_ = data->buffers[1]->data();
      f.digits_ = DigitsOf(type.unit());
      break;
    case TypeId::kTimestamp:
      f.values_ = data->buffers[1]->data();
      f.digits_ = DigitsOf(type.unit());
      f.utc_ = !type.timezone().empty();
      break;
    case TypeId::kUtf8:
    case TypeId::kBinary:
      f.values_ = data->buffers[1]->data();
      f.bytes_ = reinterpret_cast<const char*>(data->buffers[2]->data());
      break;
    case TypeId::kList: {
      f.values_ = data->buffers[1]->data();
      MINK_ASSIGN_OR_RETURN(ColumnFormatter item, Make(data->children[0]));
      f.children_.push_back(std::move(item));
      break;
    }
    case TypeId::kMap: {
      f.values_ = data->buffers[1]->data();
      const arrow::ArrayDataPtr& entries = data->children[0];
      MINK_ASSIGN_OR_RETURN(ColumnFormatter keys, Make(entries->children[0]));
      MINK_ASSIGN_OR_RETURN(ColumnFormatter items, Make(entries->children[1]));
      f.string_keys_ = keys.id_ == TypeId::kUtf8;
      f.children_.push_back(std::move(keys));
      f.children_.push_back(std::move(items));
      break;
    }
    case TypeId::kStruct:
      for (int i = 0; i < type.num_children(); ++i) {
        MINK_ASSIGN_OR_RETURN(ColumnFormatter child, Make(data->children[static_cast<size_t>(i)]));
        f.children_.push_back(std::move(child));
        f.names_.push_back(type.child(i).name());
      }
      break;
  }
  f.data_ = std::move(data);
  return f;
}

bool ColumnFormatter::IsNull(int64_t i) const {
  if (id_ == TypeId::kNull) return true;
  return validity_ != nullptr && !arrow::bits::GetBit(validity_, i);
}

bool ColumnFormatter::is_numeric() const {
  switch (id_) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal128:
      return true;
    default:
      return false;
  }
}

void ColumnFormatter::AppendJson(int64_t i, std::string* out) const {
  if (IsNull(i)) {
    out->append("null");
    return;
  }
  auto quoted = [out](const std::string& s) {
    out->push_back('"');
    out->append(s);
    out->push_back('"');
  };
  auto view = [this](int64_t k) {
    int32_t begin = Load<int32_t>(values_, k), end = Load<int32_t>(values_, k + 1);
    return std::string_view(bytes_ + begin, static_cast<size_t>(end - begin));
  };
  switch (id_) {
    case TypeId::kNull:
      out->append("null");
      break;
    case TypeId::kBool:
      out->append(arrow::bits::GetBit(values_, i) ? "true" : "false");
      break;
    case TypeId::kInt8:
      AppendInteger(Load<int8_t>(values_, i), out);
      break;
    case TypeId::kInt16:
      AppendInteger(Load<int16_t>(values_, i), out);
      break;
    case TypeId::kInt32:
      AppendInteger(Load<int32_t>(values_, i), out);
      break;
    case TypeId::kInt64:
      if (quote_wide_) out->push_back('"');
      AppendInteger(Load<int64_t>(values_, i), out);
      if (quote_wide_) out->push_back('"');
      break;
    case TypeId::kUInt8:
      AppendInteger(Load<uint8_t>(values_, i), out);
      break;
    case TypeId::kUInt16:
      AppendInteger(Load<uint16_t>(values_, i), out);
      break;
    case TypeId::kUInt32:
      AppendInteger(Load<uint32_t>(values_, i), out);
      break;
    case TypeId::kUInt64:
      if (quote_wide_) out->push_back('"');
      AppendInteger(Load<uint64_t>(values_, i), out);
      if (quote_wide_) out->push_back('"');
      break;
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      std::string s = id_ == TypeId::kFloat32 ? FormatFloat(Load<float>(values_, i))
                                              : FormatDouble(Load<double>(values_, i));
      if (IsFiniteNumberText(s)) {
        out->append(s);
      } else {
        quoted(s);
      }
      break;
    }
    case TypeId::kDecimal128:
      out->append(arrow::FormatDecimal(Load<arrow::Int128>(values_, i), data_->type->scale()));
      break;
    case TypeId::kUtf8:
      AppendJsonString(view(i), out);
      break;
    case TypeId::kBinary:
      quoted(HexEncode(view(i)));
      break;
    case TypeId::kDate32:
      quoted(FormatDate(Load<int32_t>(values_, i)));
      break;
    case TypeId::kTime32:
      quoted(FormatTimeOfDay(Load<int32_t>(values_, i), digits_));
      break;
    case TypeId::kTime64:
      quoted(FormatTimeOfDay(Load<int64_t>(values_, i), digits_));
      break;
    case TypeId::kTimestamp:
      quoted(FormatTimestamp(Load<int64_t>(values_, i), digits_, utc_));
      break;
    case TypeId::kList: {
      int32_t begin = Load<int32_t>(values_, i), end = Load<int32_t>(values_, i + 1);
      out->push_back('[');
      for (int32_t k = begin; k < end; ++k) {
        if (k > begin) out->push_back(',');
        children_[0].AppendJson(k, out);
      }
      out->push_back(']');
      break;
    }
    case TypeId::kMap: {
      int32_t begin = Load<int32_t>(values_, i), end = Load<int32_t>(values_, i + 1);
      out->push_back(string_keys_ ? '{' : '[');
      for (int32_t k = begin; k < end; ++k) {
        if (k > begin) out->push_back(',');
        if (string_keys_) {
          if (children_[0].IsNull(k)) {
            out->append("\"\"");
          } else {
            children_[0].AppendJson(k, out);
          }
          out->push_back(':');
          children_[1].AppendJson(k, out);
        } else {
          out->push_back('[');
          children_[0].AppendJson(k, out);
          out->push_back(',');
          children_[1].AppendJson(k, out);
          out->push_back(']');
        }
      }
      out->push_back(string_keys_ ? '}' : ']');
      break;
    }
    case TypeId::kStruct:
      out->push_back('{');
      for (size_t c = 0; c < children_.size(); ++c) {
        if (c > 0) out->push_back(',');
        AppendJsonString(names_[c], out);
        out->push_back(':');
        children_[c].AppendJson(i, out);
      }
      out->push_back('}');
      break;
  }
}

void ColumnFormatter::AppendText(int64_t i, std::string* out) const {
  if (IsNull(i)) {
    out->append("null");
    return;
  }
  switch (id_) {
    case TypeId::kUtf8: {
      int32_t begin = Load<int32_t>(values_, i), end = Load<int32_t>(values_, i + 1);
      AppendDisplayText(std::string_view(bytes_ + begin, static_cast<size_t>(end - begin)), out);
      return;
    }
    case TypeId::kBinary:
    case TypeId::kDate32:
    case TypeId::kTime32:
    case TypeId::kTime64:
    case TypeId::kTimestamp:
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      std::string json;
      AppendJson(i, &json);
      if (json.size() >= 2 && json.front() == '"') json = json.substr(1, json.size() - 2);
      out->append(json);
      return;
    }
    default:
      AppendJson(i, out);
  }
}

Result<RowFormatter> RowFormatter::Make(const arrow::RecordBatch& batch, bool quote_wide_integers) {
  RowFormatter f;
  for (int c = 0; c < batch.num_columns(); ++c) {
    MINK_ASSIGN_OR_RETURN(ColumnFormatter column, ColumnFormatter::Make(batch.Column(c)));
    if (quote_wide_integers) column.QuoteWideIntegers();
    f.columns_.push_back(std::move(column));
    f.quoted_names_.push_back(JsonQuote(batch.schema()->field(c).name()) + ":");
  }
  return f;
}

void RowFormatter::AppendJsonRow(int64_t row, std::string* out) const {
  out->push_back('{');
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (c > 0) out->push_back(',');
    out->append(quoted_names_[c]);
    columns_[c].AppendJson(row, out);
  }
  out->push_back('}');
}

Result<std::string> BatchToJsonLines(const arrow::RecordBatch& batch) {
  MINK_ASSIGN_OR_RETURN(RowFormatter f, RowFormatter::Make(batch));
  std::string out;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    f.AppendJsonRow(r, &out);
    out.push_back('\n');
  }
  return out;
}

}  // namespace mink::arrow_json
