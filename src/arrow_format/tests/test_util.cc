#include "test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>

#include "arrow_format/array.h"
#include "arrow_format/record_batch_builder.h"

namespace mink::arrow::testing {
namespace {

bool IsNullAt(int64_t r, int k) { return (r * 7 + k) % 5 == 0; }

std::string Hex(std::string_view bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string TimeUnitJsName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
      return "SECOND";
    case TimeUnit::kMilli:
      return "MILLISECOND";
    case TimeUnit::kMicro:
      return "MICROSECOND";
    case TimeUnit::kNano:
      return "NANOSECOND";
  }
  return "?";
}

template <typename B, typename F>
void FillPrimitive(RecordBatchBuilder* b, int k, int64_t first, int64_t n, F value_of) {
  auto* builder = b->GetFieldAs<B>(k);
  for (int64_t r = first; r < first + n; ++r) {
    if (IsNullAt(r, k)) {
      builder->AppendNull();
    } else {
      builder->Append(value_of(r));
    }
  }
}

}  // namespace

SchemaPtr AllTypesSchema() {
  std::vector<Field> fields = {
      Field("null_col", Null()),
      Field("bool_col", Bool()),
      Field("i8", Int8()),
      Field("i16", Int16()),
      Field("i32", Int32()),
      Field("i64", Int64(), true, {{"mink.comment", "a signed 64-bit column"}}),
      Field("u8", UInt8()),
      Field("u16", UInt16()),
      Field("u32", UInt32()),
      Field("u64", UInt64()),
      Field("f32", Float32()),
      Field("f64", Float64()),
      Field("dec", Decimal128(20, 3)),
      Field("utf8", Utf8()),
      Field("bin", Binary()),
      Field("date", Date32()),
      Field("time_s", Time(TimeUnit::kSecond)),
      Field("time_ms", Time(TimeUnit::kMilli)),
      Field("time_us", Time(TimeUnit::kMicro)),
      Field("time_ns", Time(TimeUnit::kNano)),
      Field("ts_s", Timestamp(TimeUnit::kSecond)),
      Field("ts_ms_utc", Timestamp(TimeUnit::kMilli, "UTC")),
      Field("ts_us_tz", Timestamp(TimeUnit::kMicro, "+07:30")),
      Field("ts_ns", Timestamp(TimeUnit::kNano)),
      Field("list_i32", List(Int32())),
      Field("list_str", List(Utf8())),
      Field("map_str_i64", Map(Utf8(), Int64())),
      Field("struct_col",
            Struct({Field("a", Int32()), Field("b", Utf8(), false), Field("c", List(Float64()))})),
      Field("not_null_i64", Int64(), false),
  };
  return std::make_shared<const Schema>(std::move(fields),
                                        KeyValueMetadata{{"mink.table", "all_types"}});
}

RecordBatchPtr AllTypesBatch(int64_t first, int64_t n) {
  auto made = RecordBatchBuilder::Make(AllTypesSchema());
  if (!made.ok()) {
    ADD_FAILURE() << made.status();
    return nullptr;
  }
  RecordBatchBuilder* b = made->get();
  b->Reserve(n);
  const int64_t end = first + n;
  b->GetField(0)->AppendNulls(n);
  {
    auto* bb = b->GetFieldAs<BooleanBuilder>(1);
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 1))
        bb->AppendNull();
      else
        bb->Append(r % 3 == 0);
    }
  }
  FillPrimitive<Int8Builder>(b, 2, first, n,
                             [](int64_t r) { return static_cast<int8_t>((r * 19) % 256 - 128); });
  FillPrimitive<Int16Builder>(b, 3, first, n,
                              [](int64_t r) { return static_cast<int16_t>(r * 1999 - 32768); });
  FillPrimitive<Int32Builder>(b, 4, first, n, [](int64_t r) {
    return r == 1 ? INT32_MAX : static_cast<int32_t>(r * -123457);
  });
  FillPrimitive<Int64Builder>(b, 5, first, n, [](int64_t r) {
    return r == 1 ? INT64_MAX : r == 2 ? INT64_MIN : r * -1000000000007;
  });
  FillPrimitive<UInt8Builder>(b, 6, first, n,
                              [](int64_t r) { return static_cast<uint8_t>((r * 37) % 256); });
  FillPrimitive<UInt16Builder>(b, 7, first, n,
                               [](int64_t r) { return static_cast<uint16_t>((r * 4099) % 65536); });
  FillPrimitive<UInt32Builder>(b, 8, first, n, [](int64_t r) {
    return r == 1 ? UINT32_MAX : static_cast<uint32_t>(r * 250000001);
  });
  FillPrimitive<UInt64Builder>(b, 9, first, n, [](int64_t r) {
    return r == 1 ? UINT64_MAX : static_cast<uint64_t>(r) * 1000000000039u;
  });
  FillPrimitive<FloatBuilder>(b, 10, first, n,
                              [](int64_t r) { return static_cast<float>(r) * 0.75f - 3.5f; });
  FillPrimitive<DoubleBuilder>(b, 11, first, n, [](int64_t r) {
    return r == 3 ? 1e300 : static_cast<double>(r) * -1.0625 + 0.1;
  });
  FillPrimitive<Decimal128Builder>(b, 12, first, n, [](int64_t r) -> Int128 {
    Int128 big = 1;
    for (int i = 0; i < 20; ++i) big *= 10;
    if (r == 1) return big - 1;
    if (r == 2) return -big + 1;
    return static_cast<Int128>(r) * -123456789013 + 5;
  });
  {
    auto* sb = b->GetFieldAs<StringBuilder>(13);
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 13)) {
        sb->AppendNull();
      } else {
        std::string s = r % 6 == 2 ? "" : "mink-" + std::to_string(r) + (r % 4 == 1 ? "-é✓" : "");
        EXPECT_TRUE(sb->Append(s).ok());
      }
    }
  }
  {
    auto* bb = b->GetFieldAs<BinaryBuilder>(14);
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 14)) {
        bb->AppendNull();
      } else {
        const char bytes[4] = {static_cast<char>(r), 0, static_cast<char>(255),
                               static_cast<char>((r * 3) & 255)};
        EXPECT_TRUE(
            bb->Append(std::string_view(bytes, static_cast<size_t>(r % 5 > 4 ? 4 : r % 5))).ok());
      }
    }
  }
  FillPrimitive<Date32Builder>(b, 15, first, n,
                               [](int64_t r) { return static_cast<int32_t>(r * 1000 - 20000); });
  FillPrimitive<Time32Builder>(b, 16, first, n,
                               [](int64_t r) { return static_cast<int32_t>((r * 4001) % 86400); });
  FillPrimitive<Time32Builder>(
      b, 17, first, n, [](int64_t r) { return static_cast<int32_t>((r * 5000011) % 86400000); });
  FillPrimitive<Time64Builder>(b, 18, first, n,
                               [](int64_t r) { return r * 5000000011 % 86400000000; });
  FillPrimitive<Time64Builder>(b, 19, first, n,
                               [](int64_t r) { return r * 5000000000011 % 86400000000000; });
  FillPrimitive<TimestampBuilder>(b, 20, first, n, [](int64_t r) { return r * 86399 - 1000000; });
  FillPrimitive<TimestampBuilder>(b, 21, first, n,
                                  [](int64_t r) { return 1700000000000 + r * 1001; });
  FillPrimitive<TimestampBuilder>(b, 22, first, n, [](int64_t r) { return r * -3600000001; });
  FillPrimitive<TimestampBuilder>(b, 23, first, n,
                                  [](int64_t r) { return 1700000000000000000 + r; });
  {
    auto* lb = b->GetFieldAs<ListBuilder>(24);
    auto* items = lb->value_builder_as<Int32Builder>();
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 24)) {
        lb->AppendNull();
        continue;
      }
      lb->Append();
      for (int64_t j = 0; j < r % 4; ++j) {
        if ((j + r) % 3 == 0)
          items->AppendNull();
        else
          items->Append(static_cast<int32_t>(j * r - 7));
      }
    }
  }
  {
    auto* lb = b->GetFieldAs<ListBuilder>(25);
    auto* items = lb->value_builder_as<StringBuilder>();
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 25)) {
        lb->AppendNull();
        continue;
      }
      lb->Append();
      for (int64_t j = 0; j < r % 3; ++j) {
        if (j == 1)
          items->AppendNull();
        else
          EXPECT_TRUE(items->Append("item" + std::to_string(j)).ok());
      }
    }
  }
  {
    auto* mb = b->GetFieldAs<MapBuilder>(26);
    auto* keys = mb->key_builder_as<StringBuilder>();
    auto* values = mb->item_builder_as<Int64Builder>();
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 26)) {
        mb->AppendNull();
        continue;
      }
      mb->Append();
      for (int64_t j = 0; j < r % 3; ++j) {
        EXPECT_TRUE(keys->Append("k" + std::to_string(j) + "-" + std::to_string(r)).ok());
        if (j == 1)
          values->AppendNull();
        else
          values->Append(j * r - 2);
      }
    }
  }
  {
    auto* sb = b->GetFieldAs<StructBuilder>(27);
    auto* a = sb->field_builder_as<Int32Builder>(0);
    auto* s = sb->field_builder_as<StringBuilder>(1);
    auto* c = sb->field_builder_as<ListBuilder>(2);
    auto* c_items = c->value_builder_as<DoubleBuilder>();
    for (int64_t r = first; r < end; ++r) {
      if (IsNullAt(r, 27)) {
        sb->AppendNull();
        continue;
      }
      sb->Append();
      if (r % 4 == 1)
        a->AppendNull();
      else
        a->Append(static_cast<int32_t>(r * 11));
      EXPECT_TRUE(s->Append("b" + std::to_string(r)).ok());
      c->Append();
      for (int64_t j = 0; j < r % 2; ++j)
        c_items->Append(static_cast<double>(r) + 0.5 * static_cast<double>(j));
    }
  }
  {
    auto* ib = b->GetFieldAs<Int64Builder>(28);
    for (int64_t r = first; r < end; ++r) ib->Append(r - 8);
  }
  auto batch = b->Flush();
  if (!batch.ok()) {
    ADD_FAILURE() << batch.status();
    return nullptr;
  }
  return *batch;
}

nlohmann::json ValueJson(const ArrayData& array, int64_t i) {
  ArrayDataPtr data(std::shared_ptr<const ArrayData>(), &array);  // non-owning alias
  Array base(data);
  if (base.IsNull(i)) return nullptr;
  const DataType& type = *array.type;
  switch (type.id()) {
    case TypeId::kNull:
      return nullptr;
    case TypeId::kBool:
      return BooleanArray(data).Value(i);
    case TypeId::kInt8:
      return Int8Array(data).Value(i);
    case TypeId::kInt16:
      return Int16Array(data).Value(i);
    case TypeId::kInt32:
      return Int32Array(data).Value(i);
    case TypeId::kInt64:
      return std::to_string(Int64Array(data).Value(i));
    case TypeId::kUInt8:
      return UInt8Array(data).Value(i);
    case TypeId::kUInt16:
      return UInt16Array(data).Value(i);
    case TypeId::kUInt32:
      return UInt32Array(data).Value(i);
    case TypeId::kUInt64:
      return std::to_string(UInt64Array(data).Value(i));
    case TypeId::kFloat32:
      return static_cast<double>(FloatArray(data).Value(i));
    case TypeId::kFloat64:
      return DoubleArray(data).Value(i);
    case TypeId::kDecimal128:
      return {{"unscaled", Int128ToString(Decimal128Array(data).Value(i))},
              {"scale", type.scale()}};
    case TypeId::kUtf8:
      return std::string(BinaryArray(data).GetView(i));
    case TypeId::kBinary:
      return Hex(BinaryArray(data).GetView(i));
    case TypeId::kDate32:
      return Date32Array(data).Value(i);
    case TypeId::kTime32:
      return Time32Array(data).Value(i);
    case TypeId::kTime64:
      return std::to_string(Time64Array(data).Value(i));
    case TypeId::kTimestamp:
      return std::to_string(TimestampArray(data).Value(i));
    case TypeId::kList: {
      ListArray list(data);
      nlohmann::json out = nlohmann::json::array();
      for (int32_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        out.push_back(ValueJson(*list.values(), j));
      }
      return out;
    }
    case TypeId::kMap: {
      MapArray map(data);
      nlohmann::json out = nlohmann::json::array();
      for (int32_t j = map.value_offset(i); j < map.value_offset(i + 1); ++j) {
        out.push_back(
            nlohmann::json::array({ValueJson(*map.keys(), j), ValueJson(*map.items(), j)}));
      }
      return out;
    }
    case TypeId::kStruct: {
      nlohmann::json out = nlohmann::json::object();
      for (int c = 0; c < type.num_children(); ++c) {
        out[type.child(c).name()] = ValueJson(*array.children[static_cast<size_t>(c)], i);
      }
      return out;
    }
  }
  return "?";
}

std::vector<nlohmann::json> RowsJson(const RecordBatch& batch) {
  std::vector<nlohmann::json> rows;
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    nlohmann::json row = nlohmann::json::object();
    for (int c = 0; c < batch.num_columns(); ++c) {
      row[batch.schema()->field(c).name()] = ValueJson(*batch.Column(c), r);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string JsTypeName(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
      return "Null";
    case TypeId::kBool:
      return "Bool";
    case TypeId::kInt8:
      return "Int8";
    case TypeId::kInt16:
      return "Int16";
    case TypeId::kInt32:
      return "Int32";
    case TypeId::kInt64:
      return "Int64";
    case TypeId::kUInt8:
      return "Uint8";
    case TypeId::kUInt16:
      return "Uint16";
    case TypeId::kUInt32:
      return "Uint32";
    case TypeId::kUInt64:
      return "Uint64";
    case TypeId::kFloat32:
      return "Float32";
    case TypeId::kFloat64:
      return "Float64";
    case TypeId::kDecimal128:
      return "Decimal[" + std::to_string(type.precision()) + "e" + (type.scale() > 0 ? "+" : "") +
             std::to_string(type.scale()) + "]";
    case TypeId::kUtf8:
      return "Utf8";
    case TypeId::kBinary:
      return "Binary";
    case TypeId::kDate32:
      return "Date32<DAY>";
    case TypeId::kTime32:
      return "Time32<" + TimeUnitJsName(type.unit()) + ">";
    case TypeId::kTime64:
      return "Time64<" + TimeUnitJsName(type.unit()) + ">";
    case TypeId::kTimestamp:
      return "Timestamp<" + TimeUnitJsName(type.unit()) +
             (type.timezone().empty() ? "" : ", " + type.timezone()) + ">";
    case TypeId::kList:
      return "List<" + JsTypeName(*type.child(0).type()) + ">";
    case TypeId::kMap: {
      const DataType& entries = *type.child(0).type();
      return "Map<{" + entries.child(0).name() + ":" + JsTypeName(*entries.child(0).type()) + ", " +
             entries.child(1).name() + ":" + JsTypeName(*entries.child(1).type()) + "}>";
    }
    case TypeId::kStruct: {
      std::string out = "Struct<{";
      for (int c = 0; c < type.num_children(); ++c) {
        if (c > 0) out += ", ";
        out += type.child(c).name() + ":" + JsTypeName(*type.child(c).type());
      }
      return out + "}>";
    }
  }
  return "?";
}

}  // namespace mink::arrow::testing
