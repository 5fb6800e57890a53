#include "table/schema_evolution.h"

#include <cstring>

#include "arrow_format/nested_builder.h"
#include "table/arrow_rows.h"

namespace mink::table {
namespace {

int128 PowerOfTen(int n) {
  int128 p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// The fixed width in bytes of an integer, float or decimal type's values.
int Width(TypeKind k) {
  switch (k) {
    case TypeKind::kTinyInt: return 1;
    case TypeKind::kSmallInt: return 2;
    case TypeKind::kInt:
    case TypeKind::kFloat: return 4;
    case TypeKind::kBigInt:
    case TypeKind::kDouble: return 8;
    case TypeKind::kDecimal: return 16;
    default: return 0;
  }
}

template <typename T>
T Load(const uint8_t* p, int64_t i) {
  T v;
  std::memcpy(&v, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// An integer of width `width` at index i, as int64.
int64_t LoadInteger(const uint8_t* p, int width, int64_t i) {
  switch (width) {
    case 1: return Load<int8_t>(p, i);
    case 2: return Load<int16_t>(p, i);
    case 4: return Load<int32_t>(p, i);
    default: return Load<int64_t>(p, i);
  }
}

// The values of `in` (of `from`) widened to `to`: a new values buffer, the validity kept.
Result<arrow::ArrayDataPtr> WidenArray(const arrow::ArrayDataPtr& in, const LogicalType& from,
                                       const LogicalType& to) {
  const int from_width = Width(from.kind), to_width = Width(to.kind);
  if (from_width == 0 || to_width == 0 || in->buffers.size() < 2 || in->buffers[1] == nullptr) {
    return InternalError("cannot widen " + from.ToString() + " to " + to.ToString());
  }
  const int64_t n = in->length;
  const uint8_t* src = in->buffers[1]->data();
  std::string out(static_cast<size_t>(n * to_width), '\0');
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < n; ++i) {
    uint8_t* at = dst + i * to_width;
    if (to.kind == TypeKind::kDecimal) {
      const int128 v = Load<int128>(src, i) * PowerOfTen(to.scale - from.scale);
      std::memcpy(at, &v, 16);
    } else if (to.kind == TypeKind::kDouble) {
      const double v = from.kind == TypeKind::kFloat
                           ? static_cast<double>(Load<float>(src, i))
                           : static_cast<double>(LoadInteger(src, from_width, i));
      std::memcpy(at, &v, 8);
    } else {  // a wider integer
      const int64_t v = LoadInteger(src, from_width, i);
      switch (to_width) {
        case 2: { const auto w = static_cast<int16_t>(v); std::memcpy(at, &w, 2); break; }
        case 4: { const auto w = static_cast<int32_t>(v); std::memcpy(at, &w, 4); break; }
        default: std::memcpy(at, &v, 8);
      }
    }
  }
  auto data = std::make_shared<arrow::ArrayData>();
  data->type = ToArrowType(to);
  data->length = n;
  data->null_count = in->null_count;
  data->buffers = {in->buffers[0], arrow::Buffer::FromString(std::move(out))};
  return arrow::ArrayDataPtr(std::move(data));
}

Result<arrow::ArrayDataPtr> NullArray(const LogicalType& type, int64_t length) {
  MINK_ASSIGN_OR_RETURN(auto builder, arrow::MakeBuilder(ToArrowType(type)));
  builder->AppendNulls(length);
  return builder->Finish();
}

}  // namespace

Value PromoteValue(const Value& value, const LogicalType& from, const LogicalType& to) {
  if (value.is_null() || from == to) return value;
  if (to.kind == TypeKind::kDecimal && from.kind == TypeKind::kDecimal) {
    return Value::Decimal(value.decimal_value() * PowerOfTen(to.scale - from.scale));
  }
  if (to.kind == TypeKind::kDouble && value.kind() == Value::Kind::kInt) {
    return Value::Double(static_cast<double>(value.int_value()));
  }
  return value;  // integers stay integers, FLOAT is held as a double already
}

Row UpgradeRow(const Row& row, const TableSchema& from, const TableSchema& to) {
  Row out;
  out.reserve(to.columns.size());
  for (const auto& c : to.columns) {
    const int i = from.FindId(c.id);
    if (i < 0 || static_cast<size_t>(i) >= row.size()) {
      out.emplace_back();
      continue;
    }
    out.push_back(PromoteValue(row[static_cast<size_t>(i)], from.columns[static_cast<size_t>(i)].type,
                               c.type));
  }
  return out;
}

SchemaUpgrade SchemaUpgrade::Make(const TableSchema& from, const TableSchema& to,
                                  const std::vector<int>& columns) {
  SchemaUpgrade u;
  for (int c : columns) {
    const Column& column = to.columns[static_cast<size_t>(c)];
    Target t;
    t.to = column.type;
    const int source = from.FindId(column.id);
    if (source >= 0) {
      t.source = static_cast<int>(u.source_columns_.size());
      t.from = from.columns[static_cast<size_t>(source)].type;
      u.source_columns_.push_back(source);
    }
    u.targets_.push_back(std::move(t));
  }
  return u;
}

Result<arrow::RecordBatchPtr> SchemaUpgrade::Apply(const arrow::RecordBatch& decoded,
                                                   const arrow::SchemaPtr& out_schema) const {
  const int64_t n = decoded.num_rows();
  std::vector<arrow::ArrayDataPtr> columns;
  columns.reserve(targets_.size());
  for (const auto& t : targets_) {
    if (t.source < 0) {
      MINK_ASSIGN_OR_RETURN(auto nulls, NullArray(t.to, n));
      columns.push_back(std::move(nulls));
      continue;
    }
    arrow::ArrayDataPtr column = decoded.Column(t.source);
    LogicalType from = t.from, to = t.to;
    from.nullable = to.nullable = true;
    if (!(from == to)) {
      MINK_ASSIGN_OR_RETURN(column, WidenArray(column, t.from, t.to));
    }
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(out_schema, n, std::move(columns));
}

Result<TableBatchDecoder> TableBatchDecoder::Make(const TableDescriptor& d,
                                                  const std::vector<int>& columns) {
  TableBatchDecoder t;
  t.d_ = &d;
  t.columns_ = columns;
  const arrow::SchemaPtr table_schema = ToArrowSchema(d.schema);
  std::vector<arrow::Field> fields;
  for (int c : columns) fields.push_back(table_schema->field(c));
  t.out_schema_ = std::make_shared<arrow::Schema>(std::move(fields));
  MINK_ASSIGN_OR_RETURN(PayloadDecoder current, PayloadDecoder::Make(table_schema));
  t.current_ = std::make_unique<PayloadDecoder>(std::move(current));
  return t;
}

Result<arrow::RecordBatchPtr> TableBatchDecoder::Decode(const SharedBytes& payload,
                                                        int32_t schema_id) {
  if (schema_id == d_->schema.schema_id) return current_->DecodeProjected(payload, columns_);
  if (schema_id > d_->schema.schema_id) {
    return FailedPreconditionError("a batch of schema " + std::to_string(schema_id) +
                                   ", newer than the schema " +
                                   std::to_string(d_->schema.schema_id) +
                                   " this read began with: the table changed; read again");
  }
  auto it = older_.find(schema_id);
  if (it == older_.end()) {
    const TableSchema* old = d_->SchemaById(schema_id);
    if (old == nullptr) {
      return DataLossError("a batch of schema " + std::to_string(schema_id) +
                           ", which the table never had");
    }
    MINK_ASSIGN_OR_RETURN(PayloadDecoder decoder, PayloadDecoder::Make(ToArrowSchema(*old)));
    it = older_.emplace(schema_id, Older{std::move(decoder), SchemaUpgrade::Make(*old, d_->schema, columns_)})
             .first;
  }
  MINK_ASSIGN_OR_RETURN(auto decoded, it->second.decoder.DecodeProjected(
                                          payload, it->second.upgrade.source_columns()));
  return it->second.upgrade.Apply(*decoded, out_schema_);
}

}  // namespace mink::table
