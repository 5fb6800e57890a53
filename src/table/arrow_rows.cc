#include "table/arrow_rows.h"

#include "arrow_format/array.h"

namespace mink::table {

int DigitsOf(arrow::TimeUnit unit) {
  switch (unit) {
    case arrow::TimeUnit::kSecond:
      return 0;
    case arrow::TimeUnit::kMilli:
      return 3;
    case arrow::TimeUnit::kMicro:
      return 6;
    case arrow::TimeUnit::kNano:
      return 9;
  }
  return 0;
}

arrow::TimeUnit TimeUnitOf(int precision) {
  if (precision == 0) return arrow::TimeUnit::kSecond;
  if (precision <= 3) return arrow::TimeUnit::kMilli;
  if (precision <= 6) return arrow::TimeUnit::kMicro;
  return arrow::TimeUnit::kNano;
}

arrow::DataTypePtr ToArrowType(const LogicalType& t) {
  switch (t.kind) {
    case TypeKind::kBoolean: return arrow::Bool();
    case TypeKind::kTinyInt: return arrow::Int8();
    case TypeKind::kSmallInt: return arrow::Int16();
    case TypeKind::kInt: return arrow::Int32();
    case TypeKind::kBigInt: return arrow::Int64();
    case TypeKind::kFloat: return arrow::Float32();
    case TypeKind::kDouble: return arrow::Float64();
    case TypeKind::kDecimal: return arrow::Decimal128(t.precision, t.scale);
    case TypeKind::kString: return arrow::Utf8();
    case TypeKind::kBytes: return arrow::Binary();
    case TypeKind::kDate: return arrow::Date32();
    case TypeKind::kTime: return arrow::Time(TimeUnitOf(t.precision));
    case TypeKind::kTimestamp: return arrow::Timestamp(TimeUnitOf(t.precision));
    case TypeKind::kTimestampLtz: return arrow::Timestamp(TimeUnitOf(t.precision), "UTC");
    case TypeKind::kArray:
      return arrow::List(arrow::Field("item", ToArrowType(t.children[0]), t.children[0].nullable));
    case TypeKind::kMap:
      return arrow::Map(ToArrowType(t.children[0]), ToArrowType(t.children[1]));
    case TypeKind::kRow: {
      std::vector<arrow::Field> fields;
      for (size_t i = 0; i < t.children.size(); ++i) {
        fields.emplace_back(t.field_names[i], ToArrowType(t.children[i]), t.children[i].nullable);
      }
      return arrow::Struct(std::move(fields));
    }
  }
  return arrow::Null();
}

arrow::SchemaPtr ToArrowSchema(const TableSchema& schema) {
  std::vector<arrow::Field> fields;
  for (const auto& c : schema.columns) fields.emplace_back(c.name, ToArrowType(c.type), !c.not_null);
  return std::make_shared<arrow::Schema>(std::move(fields));
}

bool ArrowTypeMatches(const arrow::DataType& arrow_type, const LogicalType& type) {
  // Nullability of nested children is not part of the match: writers differ on it.
  return arrow_type.Equals(*ToArrowType(type), /*check_metadata=*/false) ||
         arrow_type.ToString() == ToArrowType(type)->ToString();
}

struct ColumnReader::Impl {
  arrow::ArrayDataPtr data;
  LogicalType type;
  arrow::Array base;
  std::vector<ColumnReader> children;  // list: item; map: key, value; row: fields
  std::unique_ptr<arrow::ListArray> list;
  std::unique_ptr<arrow::BinaryArray> binary;

  Impl(arrow::ArrayDataPtr d, const LogicalType& t) : data(d), type(t), base(d) {
    switch (t.kind) {
      case TypeKind::kString:
      case TypeKind::kBytes:
        binary = std::make_unique<arrow::BinaryArray>(d);
        break;
      case TypeKind::kArray:
        list = std::make_unique<arrow::ListArray>(d);
        children.emplace_back(list->values(), t.children[0]);
        break;
      case TypeKind::kMap: {
        auto map = std::make_unique<arrow::MapArray>(d);
        children.emplace_back(map->keys(), t.children[0]);
        children.emplace_back(map->items(), t.children[1]);
        list = std::move(map);
        break;
      }
      case TypeKind::kRow:
        for (size_t i = 0; i < t.children.size(); ++i) children.emplace_back(d->children[i], t.children[i]);
        break;
      default:
        break;
    }
  }

  template <typename T>
  T Raw(int64_t i) const {
    return data->buffers[1]->data_as<T>()[i];
  }

  Value Get(int64_t i) const {
    if (base.IsNull(i)) return Value();
    switch (type.kind) {
      case TypeKind::kBoolean: return Value::Bool(arrow::BooleanArray(data).Value(i));
      case TypeKind::kTinyInt: return Value::Int(Raw<int8_t>(i));
      case TypeKind::kSmallInt: return Value::Int(Raw<int16_t>(i));
      case TypeKind::kInt:
      case TypeKind::kDate: return Value::Int(Raw<int32_t>(i));
      case TypeKind::kTime:
        return Value::Int(type.precision <= 3 ? Raw<int32_t>(i) : Raw<int64_t>(i));
      case TypeKind::kBigInt:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampLtz: return Value::Int(Raw<int64_t>(i));
      case TypeKind::kFloat: return Value::Double(Raw<float>(i));
      case TypeKind::kDouble: return Value::Double(Raw<double>(i));
      case TypeKind::kDecimal: return Value::Decimal(arrow::Decimal128Array(data).Value(i));
      case TypeKind::kString:
      case TypeKind::kBytes: return Value::Bytes(std::string(binary->GetView(i)));
      case TypeKind::kArray:
      case TypeKind::kMap: {
        std::vector<Value> items;
        int32_t begin = list->value_offset(i), end = list->value_offset(i + 1);
        for (int32_t j = begin; j < end; ++j) {
          if (type.kind == TypeKind::kMap) items.push_back(children[0].Get(j));
          items.push_back(children[type.kind == TypeKind::kMap ? 1 : 0].Get(j));
        }
        return Value::List(std::move(items));
      }
      case TypeKind::kRow: {
        std::vector<Value> fields;
        for (const auto& c : children) fields.push_back(c.Get(i));
        return Value::List(std::move(fields));
      }
    }
    return Value();
  }
};

ColumnReader::ColumnReader(arrow::ArrayDataPtr data, const LogicalType& type)
    : impl_(std::make_unique<Impl>(std::move(data), type)) {}
ColumnReader::~ColumnReader() = default;
ColumnReader::ColumnReader(ColumnReader&&) noexcept = default;
bool ColumnReader::IsNull(int64_t i) const { return impl_->base.IsNull(i); }
Value ColumnReader::Get(int64_t i) const { return impl_->Get(i); }
int64_t ColumnReader::length() const { return impl_->data->length; }

Status AppendValue(arrow::ArrayBuilder* b, const Value& v, const LogicalType& t) {
  if (v.is_null()) {
    b->AppendNull();
    return Status::Ok();
  }
  switch (t.kind) {
    case TypeKind::kBoolean: static_cast<arrow::BooleanBuilder*>(b)->Append(v.bool_value()); break;
    case TypeKind::kTinyInt:
      static_cast<arrow::Int8Builder*>(b)->Append(static_cast<int8_t>(v.int_value()));
      break;
    case TypeKind::kSmallInt:
      static_cast<arrow::Int16Builder*>(b)->Append(static_cast<int16_t>(v.int_value()));
      break;
    case TypeKind::kInt:
    case TypeKind::kDate:
      static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(v.int_value()));
      break;
    case TypeKind::kTime:
      if (t.precision <= 3) {
        static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(v.int_value()));
      } else {
        static_cast<arrow::Int64Builder*>(b)->Append(v.int_value());
      }
      break;
    case TypeKind::kBigInt:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampLtz: static_cast<arrow::Int64Builder*>(b)->Append(v.int_value()); break;
    case TypeKind::kFloat:
      static_cast<arrow::FloatBuilder*>(b)->Append(static_cast<float>(v.double_value()));
      break;
    case TypeKind::kDouble: static_cast<arrow::DoubleBuilder*>(b)->Append(v.double_value()); break;
    case TypeKind::kDecimal:
      static_cast<arrow::Decimal128Builder*>(b)->Append(v.decimal_value());
      break;
    case TypeKind::kString:
    case TypeKind::kBytes: return static_cast<arrow::BinaryBuilder*>(b)->Append(v.bytes());
    case TypeKind::kArray: {
      auto* lb = static_cast<arrow::ListBuilder*>(b);
      lb->Append();
      for (const auto& item : v.list()) {
        MINK_RETURN_IF_ERROR(AppendValue(lb->value_builder(), item, t.children[0]));
      }
      break;
    }
    case TypeKind::kMap: {
      auto* mb = static_cast<arrow::MapBuilder*>(b);
      mb->Append();
      const auto& items = v.list();
      for (size_t i = 0; i + 1 < items.size(); i += 2) {
        MINK_RETURN_IF_ERROR(AppendValue(mb->key_builder(), items[i], t.children[0]));
        MINK_RETURN_IF_ERROR(AppendValue(mb->item_builder(), items[i + 1], t.children[1]));
      }
      break;
    }
    case TypeKind::kRow: {
      auto* sb = static_cast<arrow::StructBuilder*>(b);
      sb->Append();
      for (size_t i = 0; i < t.children.size(); ++i) {
        const Value& f = i < v.list().size() ? v.list()[i] : Value();
        MINK_RETURN_IF_ERROR(AppendValue(sb->field_builder(static_cast<int>(i)), f, t.children[i]));
      }
      break;
    }
  }
  return Status::Ok();
}

std::vector<Row> BatchToRows(const arrow::RecordBatch& batch, const std::vector<LogicalType>& types) {
  std::vector<ColumnReader> readers;
  for (int c = 0; c < batch.num_columns(); ++c) readers.emplace_back(batch.Column(c), types[static_cast<size_t>(c)]);
  std::vector<Row> rows(static_cast<size_t>(batch.num_rows()));
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    Row& row = rows[static_cast<size_t>(r)];
    row.reserve(readers.size());
    for (const auto& reader : readers) row.push_back(reader.Get(r));
  }
  return rows;
}

Result<arrow::RecordBatchPtr> RowsToBatch(const std::vector<const Row*>& rows,
                                          const arrow::SchemaPtr& schema,
                                          const std::vector<LogicalType>& types) {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  for (const auto& f : schema->fields()) {
    MINK_ASSIGN_OR_RETURN(auto b, arrow::MakeBuilder(f.type()));
    b->Reserve(static_cast<int64_t>(rows.size()));
    builders.push_back(std::move(b));
  }
  for (const Row* row : rows) {
    for (size_t c = 0; c < builders.size(); ++c) {
      MINK_RETURN_IF_ERROR(AppendValue(builders[c].get(), (*row)[c], types[c]));
    }
  }
  std::vector<arrow::ArrayDataPtr> columns;
  for (auto& b : builders) {
    MINK_ASSIGN_OR_RETURN(auto col, b->Finish());
    columns.push_back(std::move(col));
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()), std::move(columns));
}

}  // namespace mink::table
