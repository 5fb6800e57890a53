#include "arrow_format/c_bridge.h"

#include <gtest/gtest.h>

#include <cstring>

#include "arrow_format/array.h"
#include "arrow_format/nested_builder.h"
#include "test_util.h"

namespace mink::arrow {
namespace {

TEST(CBridgeTest, FormatStrings) {
  EXPECT_EQ(CDataFormat(*Null()), "n");
  EXPECT_EQ(CDataFormat(*Bool()), "b");
  EXPECT_EQ(CDataFormat(*Int8()), "c");
  EXPECT_EQ(CDataFormat(*UInt8()), "C");
  EXPECT_EQ(CDataFormat(*Int16()), "s");
  EXPECT_EQ(CDataFormat(*UInt16()), "S");
  EXPECT_EQ(CDataFormat(*Int32()), "i");
  EXPECT_EQ(CDataFormat(*UInt32()), "I");
  EXPECT_EQ(CDataFormat(*Int64()), "l");
  EXPECT_EQ(CDataFormat(*UInt64()), "L");
  EXPECT_EQ(CDataFormat(*Float32()), "f");
  EXPECT_EQ(CDataFormat(*Float64()), "g");
  EXPECT_EQ(CDataFormat(*Decimal128(10, 2)), "d:10,2");
  EXPECT_EQ(CDataFormat(*Utf8()), "u");
  EXPECT_EQ(CDataFormat(*Binary()), "z");
  EXPECT_EQ(CDataFormat(*Date32()), "tdD");
  EXPECT_EQ(CDataFormat(*Time(TimeUnit::kSecond)), "tts");
  EXPECT_EQ(CDataFormat(*Time(TimeUnit::kMilli)), "ttm");
  EXPECT_EQ(CDataFormat(*Time(TimeUnit::kMicro)), "ttu");
  EXPECT_EQ(CDataFormat(*Time(TimeUnit::kNano)), "ttn");
  EXPECT_EQ(CDataFormat(*Timestamp(TimeUnit::kMilli, "UTC")), "tsm:UTC");
  EXPECT_EQ(CDataFormat(*Timestamp(TimeUnit::kNano)), "tsn:");
  EXPECT_EQ(CDataFormat(*List(Int32())), "+l");
  EXPECT_EQ(CDataFormat(*Map(Utf8(), Int32())), "+m");
  EXPECT_EQ(CDataFormat(*Struct({})), "+s");
}

TEST(CBridgeTest, SchemaExportCarriesNamesFlagsAndMetadata) {
  SchemaPtr schema = testing::AllTypesSchema();
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportSchema(*schema, &c_schema).ok());
  EXPECT_STREQ(c_schema.format, "+s");
  ASSERT_EQ(c_schema.n_children, schema->num_fields());
  const ArrowSchema* i64 = c_schema.children[5];
  EXPECT_STREQ(i64->name, "i64");
  EXPECT_EQ(i64->flags & ARROW_FLAG_NULLABLE, ARROW_FLAG_NULLABLE);
  ASSERT_NE(i64->metadata, nullptr);
  int32_t n;
  std::memcpy(&n, i64->metadata, 4);
  EXPECT_EQ(n, 1);
  const ArrowSchema* not_null = c_schema.children[schema->num_fields() - 1];
  EXPECT_EQ(not_null->flags & ARROW_FLAG_NULLABLE, 0);
  const ArrowSchema* map = c_schema.children[schema->GetFieldIndex("map_str_i64")];
  EXPECT_STREQ(map->children[0]->name, "entries");
  EXPECT_EQ(map->children[0]->flags & ARROW_FLAG_NULLABLE, 0);

  auto imported = ImportSchema(&c_schema);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(c_schema.release, nullptr) << "import releases what it imported";
  EXPECT_TRUE((*imported)->Equals(*schema)) << (*imported)->ToString();
}

TEST(CBridgeTest, RecordBatchRoundTripsEveryType) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 41);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array, &c_schema).ok());
  EXPECT_EQ(c_array.length, 41);
  EXPECT_EQ(c_array.n_children, batch->num_columns());
  auto imported = ImportRecordBatch(&c_array, &c_schema);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(c_array.release, nullptr);
  EXPECT_EQ(c_schema.release, nullptr);
  EXPECT_TRUE((*imported)->Equals(*batch));
  EXPECT_EQ((*imported)->Column(5)->buffers[1]->data(), batch->Column(5)->buffers[1]->data())
      << "import views the producer's buffers";
  batch.reset();
  EXPECT_TRUE((*imported)->Equals(*testing::AllTypesBatch(0, 41))) << "and keeps them alive";
}

// An imported array is released when the last buffer viewing it goes, not before.
TEST(CBridgeTest, TheImportedArrayIsReleasedWithItsLastView) {
  static int releases = 0;
  releases = 0;
  static const int64_t values[3] = {7, 8, 9};
  static const void* buffers[2] = {nullptr, values};
  ArrowArray c_array{};
  c_array.length = 3;
  c_array.n_buffers = 2;
  c_array.buffers = buffers;
  c_array.release = [](ArrowArray* a) {
    ++releases;
    a->release = nullptr;
  };
  auto imported = ImportArray(&c_array, Int64());
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_EQ(c_array.release, nullptr) << "moved out of the caller's struct";
  BufferPtr kept = (*imported)->buffers[1];
  imported = Result<ArrayDataPtr>(ArrayDataPtr());
  EXPECT_EQ(releases, 0) << "a buffer still views it";
  EXPECT_EQ(kept->data_as<int64_t>()[2], 9);
  kept.reset();
  EXPECT_EQ(releases, 1);
}

TEST(CBridgeTest, EachColumnRoundTripsAlone) {
  RecordBatchPtr batch = testing::AllTypesBatch(3, 29);
  for (int c = 0; c < batch->num_columns(); ++c) {
    const Field& field = batch->schema()->field(c);
    SCOPED_TRACE(field.ToString());
    ArrowSchema c_schema;
    ArrowArray c_array;
    ASSERT_TRUE(ExportField(field, &c_schema).ok());
    ASSERT_TRUE(ExportArray(batch->Column(c), &c_array).ok());
    auto imported_field = ImportField(&c_schema);
    ASSERT_TRUE(imported_field.ok()) << imported_field.status();
    EXPECT_TRUE(imported_field->Equals(field));
    auto imported = ImportArray(&c_array, imported_field->type());
    ASSERT_TRUE(imported.ok()) << imported.status();
    EXPECT_TRUE(ArrayDataEquals(**imported, *batch->Column(c)));
  }
}

TEST(CBridgeTest, ImportAppliesOffsets) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 40);
  ArrowArray c_array;
  ArrowSchema c_schema;
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array, &c_schema).ok());
  // A consumer-side slice of rows [5, 40): the struct's offset applies to its children, and list
  // offsets and bitmaps start mid-buffer.
  c_array.offset = 5;
  c_array.length = 35;
  auto imported = ImportRecordBatch(&c_array, &c_schema);
  ASSERT_TRUE(imported.ok()) << imported.status();
  EXPECT_TRUE((*imported)->Equals(*testing::AllTypesBatch(5, 35)));

  // Offsets on a child array too.
  ArrowArray strings;
  ASSERT_TRUE(ExportArray(batch->Column(13), &strings).ok());
  strings.offset = 11;
  strings.length = 20;
  strings.null_count = -1;  // unknown: the importer counts
  auto column = ImportArray(&strings, Utf8());
  ASSERT_TRUE(column.ok()) << column.status();
  EXPECT_TRUE(ArrayDataEquals(**column, *testing::AllTypesBatch(11, 20)->Column(13)));
}

TEST(CBridgeTest, ExportedBuffersOutliveTheBatch) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 10);
  const int64_t expected = Int64Array(batch->Column(5)).Value(3);
  ArrowArray c_array;
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array, nullptr).ok());
  const void* shared = c_array.children[5]->buffers[1];
  EXPECT_EQ(shared, batch->Column(5)->buffers[1]->data()) << "export does not copy";
  batch.reset();
  int64_t v;
  std::memcpy(&v, static_cast<const char*>(c_array.children[5]->buffers[1]) + 3 * 8, 8);
  EXPECT_EQ(v, expected);
  c_array.release(&c_array);
  EXPECT_EQ(c_array.release, nullptr);
}

TEST(CBridgeTest, ConsumerMayMoveAChildOut) {
  RecordBatchPtr batch = testing::AllTypesBatch(0, 10);
  ArrowArray c_array;
  ASSERT_TRUE(ExportRecordBatch(batch, &c_array, nullptr).ok());
  ArrowArray moved = *c_array.children[13];
  c_array.children[13]->release = nullptr;  // moved: the parent's release must skip it
  c_array.release(&c_array);
  batch.reset();
  auto column = ImportArray(&moved, Utf8());
  ASSERT_TRUE(column.ok()) << column.status();
  EXPECT_TRUE(ArrayDataEquals(**column, *testing::AllTypesBatch(0, 10)->Column(13)));
}

TEST(CBridgeTest, NullBitmapIsOmittedWithoutNulls) {
  Int64Builder b;
  b.Append(1);
  ArrowArray c_array;
  ASSERT_TRUE(ExportArray(*b.Finish(), &c_array).ok());
  EXPECT_EQ(c_array.n_buffers, 2);
  EXPECT_EQ(c_array.buffers[0], nullptr);
  EXPECT_EQ(c_array.null_count, 0);
  c_array.release(&c_array);
}

TEST(CBridgeTest, UnsupportedImportsAreErrorsAndStillRelease) {
  // A union schema: the format is valid C data interface, but not a type Mink has.
  ArrowSchema child;
  ASSERT_TRUE(ExportField(Field("a", Int32()), &child).ok());
  struct Holder {
    ArrowSchema* children[1];
    std::string format = "+us:0";
  };
  auto* holder = new Holder{{&child}};
  ArrowSchema parent{};
  parent.format = holder->format.c_str();
  parent.name = "u";
  parent.n_children = 1;
  parent.children = holder->children;
  parent.private_data = holder;
  parent.release = [](ArrowSchema* s) {
    auto* h = static_cast<Holder*>(s->private_data);
    h->children[0]->release(h->children[0]);
    delete h;
    s->release = nullptr;
  };
  auto imported = ImportField(&parent);
  EXPECT_EQ(imported.status().code(), StatusCode::kUnimplemented) << imported.status();
  EXPECT_EQ(parent.release, nullptr);
  EXPECT_EQ(child.release, nullptr);
}

}  // namespace
}  // namespace mink::arrow
