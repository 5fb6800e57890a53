// ProjectRecordBatchMessage: an encoded record batch reduced to some of its columns without
// decoding decodes to the same columns as the whole batch, compressed or not, nested or flat.

#include "arrow_format/ipc_project.h"

#include <gtest/gtest.h>

#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "arrow_format/nested_builder.h"
#include "arrow_format/record_batch_builder.h"

namespace mink::arrow {
namespace {

RecordBatchPtr MakeBatch(const SchemaPtr& schema) {
  auto builder = RecordBatchBuilder::Make(schema);
  EXPECT_TRUE(builder.ok());
  for (int i = 0; i < 1000; ++i) {
    (*builder)->GetFieldAs<Int64Builder>(0)->Append(i * 3);
    if (i % 7 == 0) {
      (*builder)->GetFieldAs<StringBuilder>(1)->AppendNull();
    } else {
      EXPECT_TRUE(
          (*builder)->GetFieldAs<StringBuilder>(1)->Append("s" + std::to_string(i % 13)).ok());
    }
    auto* list = (*builder)->GetFieldAs<ListBuilder>(2);
    list->Append();
    for (int j = 0; j < i % 3; ++j) static_cast<Int32Builder*>(list->value_builder())->Append(j);
    (*builder)->GetFieldAs<DoubleBuilder>(3)->Append(i * 0.25);
  }
  auto batch = (*builder)->Flush();
  EXPECT_TRUE(batch.ok());
  return *batch;
}

TEST(IpcProjectTest, ProjectedMessageDecodesToTheSelectedColumns) {
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field("a", Int64(), false), Field("s", Utf8()), Field("l", List(Int32())),
                         Field("d", Float64())});
  RecordBatchPtr batch = MakeBatch(schema);
  for (CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kLz4Frame}) {
    IpcWriteOptions options;
    options.compression = codec;
    auto whole = EncodeRecordBatchMessage(*batch, options);
    ASSERT_TRUE(whole.ok());
    for (const std::vector<int>& columns :
         {std::vector<int>{3, 0}, std::vector<int>{2}, std::vector<int>{1, 2, 3}}) {
      auto projected = ProjectRecordBatchMessage(whole->metadata, whole->body, *schema, columns);
      ASSERT_TRUE(projected.ok()) << projected.status();
      auto expected = batch->SelectColumns(columns);
      ASSERT_TRUE(expected.ok());
      IpcDecoder decoder;
      ASSERT_TRUE(
          decoder.Decode(EncodeSchemaMessage(*(*expected)->schema()).metadata, nullptr).ok());
      auto decoded = decoder.Decode(projected->metadata, Buffer::FromString(projected->body));
      ASSERT_TRUE(decoded.ok()) << decoded.status();
      EXPECT_TRUE(decoded->batch->Equals(**expected));
      EXPECT_LT(projected->body.size(), whole->body.size());
    }
  }
}

TEST(IpcProjectTest, MessagesThatDoNotMatchTheSchemaAreRefused) {
  auto schema =
      std::make_shared<Schema>(std::vector<Field>{Field("a", Int64()), Field("d", Float64())});
  auto builder = RecordBatchBuilder::Make(schema);
  ASSERT_TRUE(builder.ok());
  (*builder)->GetFieldAs<Int64Builder>(0)->Append(1);
  (*builder)->GetFieldAs<DoubleBuilder>(1)->Append(2);
  auto batch = (*builder)->Flush();
  ASSERT_TRUE(batch.ok());
  auto message = EncodeRecordBatchMessage(**batch);
  ASSERT_TRUE(message.ok());
  auto other = std::make_shared<Schema>(std::vector<Field>{Field("s", Utf8())});
  EXPECT_FALSE(ProjectRecordBatchMessage(message->metadata, message->body, *other, {0}).ok());
  EXPECT_FALSE(ProjectRecordBatchMessage(message->metadata, message->body, *schema, {2}).ok());
  // A body cut short.
  EXPECT_FALSE(ProjectRecordBatchMessage(message->metadata,
                                         std::string_view(message->body).substr(0, 4), *schema, {1})
                   .ok());
}

}  // namespace
}  // namespace mink::arrow
