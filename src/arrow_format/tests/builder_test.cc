#include <gtest/gtest.h>

#include "arrow_format/array.h"
#include "arrow_format/record_batch_builder.h"
#include "test_util.h"

namespace mink::arrow {
namespace {

ArrayDataPtr FinishOk(ArrayBuilder& b) {
  auto r = b.Finish();
  EXPECT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(ValidateArrayData(**r).ok()) << ValidateArrayData(**r);
  return *r;
}

TEST(BuilderTest, Int64WithoutNullsHasNoValidityBitmap) {
  Int64Builder b;
  for (int64_t i = 0; i < 100; ++i) b.Append(i * 3);
  ArrayDataPtr data = FinishOk(b);
  EXPECT_EQ(data->length, 100);
  EXPECT_EQ(data->null_count, 0);
  EXPECT_EQ(data->buffers[0], nullptr);
  Int64Array a(data);
  EXPECT_EQ(a.Value(99), 297);
  EXPECT_FALSE(a.IsNull(5));
}

TEST(BuilderTest, ValidityMaterialisesAtTheFirstNull) {
  Int32Builder b;
  for (int i = 0; i < 13; ++i) b.Append(i);
  b.AppendNull();
  b.Append(14);
  b.AppendNulls(3);
  ArrayDataPtr data = FinishOk(b);
  ASSERT_NE(data->buffers[0], nullptr);
  EXPECT_EQ(data->null_count, 4);
  Int32Array a(data);
  for (int i = 0; i < 13; ++i) EXPECT_TRUE(a.IsValid(i)) << i;
  EXPECT_TRUE(a.IsNull(13));
  EXPECT_EQ(a.Value(14), 14);
  EXPECT_TRUE(a.IsNull(15) && a.IsNull(16) && a.IsNull(17));
}

TEST(BuilderTest, FinishResetsForReuse) {
  StringBuilder b;
  ASSERT_TRUE(b.Append("one").ok());
  b.AppendNull();
  ArrayDataPtr first = FinishOk(b);
  ASSERT_TRUE(b.Append("two").ok());
  ArrayDataPtr second = FinishOk(b);
  EXPECT_EQ(first->length, 2);
  EXPECT_EQ(second->length, 1);
  EXPECT_EQ(second->null_count, 0);
  EXPECT_EQ(StringArray(second).GetView(0), "two");
  EXPECT_EQ(StringArray(first).GetView(0), "one");
}

TEST(BuilderTest, EveryPrimitiveTypeRoundTripsValuesAndNulls) {
  UInt8Builder u8;
  u8.Append(255);
  u8.AppendNull();
  UInt16Builder u16;
  u16.Append(65535);
  u16.AppendNull();
  UInt32Builder u32;
  u32.Append(4000000000u);
  u32.AppendNull();
  UInt64Builder u64;
  u64.Append(UINT64_MAX);
  u64.AppendNull();
  Int8Builder i8;
  i8.Append(-128);
  i8.AppendNull();
  Int16Builder i16;
  i16.Append(-32768);
  i16.AppendNull();
  FloatBuilder f32;
  f32.Append(1.5f);
  f32.AppendNull();
  DoubleBuilder f64;
  f64.Append(-2.25);
  f64.AppendNull();
  EXPECT_EQ(UInt8Array(FinishOk(u8)).Value(0), 255);
  EXPECT_EQ(UInt16Array(FinishOk(u16)).Value(0), 65535);
  EXPECT_EQ(UInt32Array(FinishOk(u32)).Value(0), 4000000000u);
  EXPECT_EQ(UInt64Array(FinishOk(u64)).Value(0), UINT64_MAX);
  EXPECT_EQ(Int8Array(FinishOk(i8)).Value(0), -128);
  EXPECT_EQ(Int16Array(FinishOk(i16)).Value(0), -32768);
  EXPECT_EQ(FloatArray(FinishOk(f32)).Value(0), 1.5f);
  EXPECT_EQ(DoubleArray(FinishOk(f64)).Value(0), -2.25);
}

TEST(BuilderTest, TemporalBuildersCarryTheirType) {
  Date32Builder date(Date32());
  date.Append(19000);
  date.AppendNull();
  TimestampBuilder ts(Timestamp(TimeUnit::kMicro, "UTC"));
  ts.Append(1700000000000000);
  ts.AppendNull();
  Time32Builder t32(Time(TimeUnit::kMilli));
  t32.Append(86399999);
  Time64Builder t64(Time(TimeUnit::kNano));
  t64.Append(86399999999999);
  ArrayDataPtr d = FinishOk(date);
  ArrayDataPtr t = FinishOk(ts);
  EXPECT_EQ(d->type->id(), TypeId::kDate32);
  EXPECT_EQ(Date32Array(d).Value(0), 19000);
  EXPECT_TRUE(Date32Array(d).IsNull(1));
  EXPECT_EQ(t->type->ToString(), "timestamp[us, tz=UTC]");
  EXPECT_EQ(TimestampArray(t).Value(0), 1700000000000000);
  EXPECT_EQ(Time32Array(FinishOk(t32)).Value(0), 86399999);
  EXPECT_EQ(Time64Array(FinishOk(t64)).Value(0), 86399999999999);
}

TEST(BuilderTest, BooleansAreBitPacked) {
  BooleanBuilder b;
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 6)
      b.AppendNull();
    else
      b.Append(i % 3 == 0);
  }
  ArrayDataPtr data = FinishOk(b);
  EXPECT_EQ(data->buffers[1]->size(), 3);
  BooleanArray a(data);
  for (int i = 0; i < 20; ++i) {
    if (i % 7 == 6) {
      EXPECT_TRUE(a.IsNull(i));
    } else {
      EXPECT_EQ(a.Value(i), i % 3 == 0) << i;
    }
  }
}

TEST(BuilderTest, Decimal128KeepsUnscaledValuesAndFormats) {
  Decimal128Builder b(Decimal128(38, 2));
  Int128 max = 1;
  for (int i = 0; i < 38; ++i) max *= 10;
  max -= 1;
  b.Append(1050);
  b.Append(-5);
  b.AppendNull();
  b.Append(max);
  b.Append(-max);
  Decimal128Array a(FinishOk(b));
  EXPECT_EQ(a.FormatValue(0), "10.50");
  EXPECT_EQ(a.FormatValue(1), "-0.05");
  EXPECT_TRUE(a.IsNull(2));
  EXPECT_EQ(Int128ToString(a.Value(3)), "99999999999999999999999999999999999999");
  EXPECT_EQ(a.FormatValue(4), "-999999999999999999999999999999999999.99");
  EXPECT_EQ(FormatDecimal(0, 2), "0.00");
  EXPECT_EQ(FormatDecimal(12, 0), "12");
  EXPECT_EQ(FormatDecimal(12, -2), "1200");
  Int128 min = static_cast<Int128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(Int128ToString(min), "-170141183460469231731687303715884105728");
}

TEST(BuilderTest, StringsAndBinary) {
  StringBuilder s;
  ASSERT_TRUE(s.Append("héllo").ok());
  ASSERT_TRUE(s.Append("").ok());
  s.AppendNull();
  s.AppendEmptyValue();
  ASSERT_TRUE(s.Append(std::string(1000, 'x')).ok());
  StringArray a(FinishOk(s));
  EXPECT_EQ(a.GetString(0), "héllo");
  EXPECT_EQ(a.GetView(1), "");
  EXPECT_TRUE(a.IsValid(1));
  EXPECT_TRUE(a.IsNull(2));
  EXPECT_TRUE(a.IsValid(3));
  EXPECT_EQ(a.value_length(4), 1000);

  BinaryBuilder b(Binary());
  ASSERT_TRUE(b.Append(std::string_view("\0\x01\xff", 3)).ok());
  BinaryArray bin(FinishOk(b));
  EXPECT_EQ(bin.GetView(0), std::string_view("\0\x01\xff", 3));
  EXPECT_EQ(bin.type()->id(), TypeId::kBinary);
}

TEST(BuilderTest, NullTypeCountsEverySlotAsNull) {
  NullBuilder b;
  b.AppendNulls(5);
  ArrayDataPtr data = FinishOk(b);
  EXPECT_EQ(data->length, 5);
  EXPECT_EQ(data->null_count, 5);
  EXPECT_TRUE(data->buffers.empty());
  EXPECT_TRUE(Array(data).IsNull(3));
}

TEST(BuilderTest, ListOfListsWithNulls) {
  auto inner_type = List(Int64());
  auto type = List(inner_type);
  auto made = MakeBuilder(type);
  ASSERT_TRUE(made.ok());
  auto* outer = static_cast<ListBuilder*>(made->get());
  auto* inner = outer->value_builder_as<ListBuilder>();
  auto* values = inner->value_builder_as<Int64Builder>();
  outer->Append();  // [[1, 2], null, []]
  inner->Append();
  values->Append(1);
  values->Append(2);
  inner->AppendNull();
  inner->Append();
  outer->AppendNull();
  outer->Append();  // []
  ListArray a(FinishOk(*outer));
  EXPECT_EQ(a.length(), 3);
  EXPECT_EQ(a.value_length(0), 3);
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.value_length(2), 0);
  ListArray in(a.values());
  EXPECT_EQ(in.value_length(0), 2);
  EXPECT_TRUE(in.IsNull(1));
  EXPECT_EQ(Int64Array(in.values()).Value(1), 2);
}

TEST(BuilderTest, MapKeysAndItemsMustAgree) {
  auto made = MakeBuilder(Map(Utf8(), Int32()));
  ASSERT_TRUE(made.ok());
  auto* m = static_cast<MapBuilder*>(made->get());
  auto* keys = m->key_builder_as<StringBuilder>();
  auto* items = m->item_builder_as<Int32Builder>();
  m->Append();
  ASSERT_TRUE(keys->Append("a").ok());
  items->Append(1);
  ASSERT_TRUE(keys->Append("b").ok());
  items->AppendNull();
  m->AppendNull();
  m->Append();
  MapArray a(FinishOk(*m));
  EXPECT_EQ(a.value_length(0), 2);
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.value_length(2), 0);
  EXPECT_EQ(StringArray(a.keys()).GetView(1), "b");
  EXPECT_TRUE(Int32Array(a.items()).IsNull(1));
  EXPECT_EQ(a.entries()->null_count, 0);

  m->Append();
  ASSERT_TRUE(keys->Append("lonely").ok());
  auto bad = m->Finish();
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(BuilderTest, StructNullFillsChildrenAndLengthsAreChecked) {
  auto type = Struct({Field("x", Int32(), false), Field("s", Utf8())});
  auto made = MakeBuilder(type);
  ASSERT_TRUE(made.ok());
  auto* sb = static_cast<StructBuilder*>(made->get());
  sb->Append();
  sb->field_builder_as<Int32Builder>(0)->Append(7);
  ASSERT_TRUE(sb->field_builder_as<StringBuilder>(1)->Append("seven").ok());
  sb->AppendNull();
  StructArray a(FinishOk(*sb));
  EXPECT_EQ(a.length(), 2);
  EXPECT_TRUE(a.IsNull(1));
  EXPECT_EQ(a.field(0)->length, 2);
  EXPECT_EQ(a.field(0)->null_count, 0);  // empty values, not nulls, under a null struct
  EXPECT_EQ(Int32Array(a.GetFieldByName("x")).Value(0), 7);
  EXPECT_EQ(a.GetFieldByName("nope"), nullptr);

  sb->Append();
  sb->field_builder_as<Int32Builder>(0)->Append(1);
  auto bad = sb->Finish();
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("field s"), std::string::npos) << bad.status();
}

TEST(BuilderTest, AllTypesBatchIsValidWithNullsEverywhere) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 50);
  ASSERT_NE(batch, nullptr);
  ASSERT_TRUE(batch->Validate().ok()) << batch->Validate();
  for (int c = 0; c < batch->num_columns(); ++c) {
    const Field& f = batch->schema()->field(c);
    if (f.nullable()) {
      EXPECT_GT(batch->Column(c)->null_count, 0) << f.name();
    } else {
      EXPECT_EQ(batch->Column(c)->null_count, 0) << f.name();
    }
  }
  EXPECT_EQ(Int64Array(batch->Column(5)).Value(1), INT64_MAX);
  EXPECT_EQ(StringArray(batch->Column(13)).GetView(5), "mink-5-é✓");
}

TEST(RecordBatchTest, SelectColumnsSharesBuffers) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 10);
  auto projected = batch->SelectColumns({13, 5});
  ASSERT_TRUE(projected.ok());
  EXPECT_EQ((*projected)->num_columns(), 2);
  EXPECT_EQ((*projected)->schema()->field(0).name(), "utf8");
  EXPECT_EQ((*projected)->Column(0), batch->Column(13));
  EXPECT_EQ((*projected)->Column(1)->buffers[1]->data(), batch->Column(5)->buffers[1]->data());
  EXPECT_EQ((*projected)->num_rows(), 10);
  EXPECT_EQ(batch->SelectColumns({99}).status().code(), StatusCode::kInvalidArgument);
}

TEST(RecordBatchTest, MakeChecksShape) {
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("a", Int64())});
  Int64Builder b;
  b.Append(1);
  ArrayDataPtr col = FinishOk(b);
  EXPECT_TRUE(RecordBatch::Make(schema, 1, {col}).ok());
  EXPECT_FALSE(RecordBatch::Make(schema, 2, {col}).ok());
  EXPECT_FALSE(RecordBatch::Make(schema, 1, {}).ok());
  StringBuilder s;
  ASSERT_TRUE(s.Append("x").ok());
  EXPECT_FALSE(RecordBatch::Make(schema, 1, {FinishOk(s)}).ok());
}

TEST(RecordBatchTest, BuilderFlushRejectsRaggedColumns) {
  auto schema =
      std::make_shared<const Schema>(std::vector<Field>{Field("a", Int64()), Field("b", Utf8())});
  auto made = RecordBatchBuilder::Make(schema);
  ASSERT_TRUE(made.ok());
  (*made)->GetFieldAs<Int64Builder>(0)->Append(1);
  auto r = (*made)->Flush();
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST(ValidateTest, CatchesBrokenArrays) {
  StringBuilder s;
  ASSERT_TRUE(s.Append("abc").ok());
  ASSERT_TRUE(s.Append("de").ok());
  ArrayDataPtr good = FinishOk(s);

  auto broken = std::make_shared<ArrayData>(*good);
  int32_t offsets[] = {0, 4, 2};  // decreasing
  broken->buffers[1] = Buffer::Copy(offsets, sizeof(offsets));
  EXPECT_FALSE(ValidateArrayData(*broken).ok());

  int32_t too_far[] = {0, 3, 50};
  broken->buffers[1] = Buffer::Copy(too_far, sizeof(too_far));
  EXPECT_FALSE(ValidateArrayData(*broken).ok());

  auto wrong_nulls = std::make_shared<ArrayData>(*good);
  wrong_nulls->null_count = 1;  // but no bitmap
  EXPECT_FALSE(ValidateArrayData(*wrong_nulls).ok());

  Int64Builder i;
  i.Append(1);
  i.Append(2);
  auto short_values = std::make_shared<ArrayData>(*FinishOk(i));
  short_values->length = 3;
  EXPECT_FALSE(ValidateArrayData(*short_values).ok());
}

TEST(ValidateTest, EqualityIsLogical) {
  RecordBatchPtr a = testing::AllTypesBatch(0, 30);
  RecordBatchPtr b = testing::AllTypesBatch(0, 30);
  RecordBatchPtr c = testing::AllTypesBatch(1, 30);
  EXPECT_TRUE(a->Equals(*b));
  EXPECT_FALSE(a->Equals(*c));
}

}  // namespace
}  // namespace mink::arrow
