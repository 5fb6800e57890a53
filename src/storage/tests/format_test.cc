#include <gtest/gtest.h>

#include "storage/batch_format.h"
#include "storage/object_format.h"

namespace mink::storage {
namespace {

BatchInput Input(const std::string& payload, int32_t count, std::string changes = "") {
  BatchInput in;
  in.record_count = count;
  in.payload = payload;
  in.change_types = std::move(changes);
  in.writer_id = 77;
  in.writer_epoch = 5;
  in.batch_sequence = 3;
  in.schema_id = 2;
  return in;
}

TEST(BatchFormat, RoundTripsEveryField) {
  std::string data;
  EncodeBatch(Input("hello", 2, std::string("\x00\x01", 2)), 40, 1234, &data);
  EncodeBatch(Input("world!", 1), 42, 1235, &data);
  EXPECT_EQ(data.size(), EncodedBatchSize(Input("hello", 2, "ab")) + EncodedBatchSize(Input("world!", 1)));
  auto batches = DecodeBatches(data, "obj");
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 2u);
  const Batch& a = (*batches)[0];
  EXPECT_EQ(a.base_offset, 40);
  EXPECT_EQ(a.record_count, 2);
  EXPECT_EQ(a.timestamp_ms, 1234);
  EXPECT_EQ(a.writer_id, 77);
  EXPECT_EQ(a.writer_epoch, 5);
  EXPECT_EQ(a.batch_sequence, 3);
  EXPECT_EQ(a.schema_id, 2);
  EXPECT_EQ(a.change_types, std::string("\x00\x01", 2));
  EXPECT_EQ(a.payload.view(), "hello");
  EXPECT_EQ((*batches)[1].base_offset, 42);
  EXPECT_EQ((*batches)[1].payload.view(), "world!");
  EXPECT_TRUE((*batches)[1].change_types.empty());
}

TEST(BatchFormat, PayloadsPointIntoTheRunTheirOwnerKeeps) {
  auto run = std::make_shared<std::string>();
  EncodeBatch(Input("hello", 1), 0, 1, run.get());
  EncodeBatch(Input("world!", 1), 1, 2, run.get());
  auto batches = DecodeBatches(*run, "obj", 0, run);
  ASSERT_TRUE(batches.ok()) << batches.status();
  ASSERT_EQ(batches->size(), 2u);
  for (const Batch& b : *batches) {
    EXPECT_GE(b.payload.data(), run->data());
    EXPECT_LE(b.payload.data() + b.payload.size(), run->data() + run->size());
  }
  // The batches keep the run alive after the reader lets it go.
  std::weak_ptr<std::string> watch = run;
  run.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_EQ((*batches)[1].payload.view(), "world!");
  batches->clear();
  EXPECT_TRUE(watch.expired());
}

TEST(BatchFormat, PayloadsAreCopiedWhenNothingOwnsTheRun) {
  std::string run;
  EncodeBatch(Input("hello", 1), 0, 1, &run);
  auto batches = DecodeBatches(run, "obj");
  ASSERT_TRUE(batches.ok()) << batches.status();
  run.assign(run.size(), 'x');
  EXPECT_EQ((*batches)[0].payload.view(), "hello");
}

TEST(BatchFormat, EveryFlippedByteIsDetected) {
  std::string data;
  EncodeBatch(Input("payload bytes", 3), 0, 99, &data);
  for (size_t i = 0; i < data.size(); ++i) {
    std::string bad = data;
    bad[i] ^= 0x20;
    auto decoded = DecodeBatches(bad, "wal/n1/e1/000000000007", 1000);
    ASSERT_FALSE(decoded.ok()) << "flip at byte " << i;
    EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss);
    EXPECT_NE(decoded.status().message().find("wal/n1/e1/000000000007"), std::string::npos);
  }
}

TEST(BatchFormat, TruncationIsDetected) {
  std::string data;
  EncodeBatch(Input("payload bytes", 3), 0, 99, &data);
  for (size_t len = 1; len < data.size(); ++len) {
    auto decoded = DecodeBatches(std::string_view(data).substr(0, len), "k");
    EXPECT_EQ(decoded.status().code(), StatusCode::kDataLoss) << len;
  }
}

TEST(ObjectFormat, IndexDescribesEveryRun) {
  ObjectBuilder builder(ObjectKind::kWal);
  builder.BeginRun(5);
  builder.AddBatch(Input("a", 1), 10, 100);
  builder.AddBatch(Input("bb", 2), 11, 101);
  builder.BeginRun(9);
  builder.AddBatch(Input("ccc", 3), 0, 102);
  std::string object = builder.Finish();
  auto index = ReadObjectIndex(object, "o");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->kind, ObjectKind::kWal);
  ASSERT_EQ(index->runs.size(), 2u);
  EXPECT_EQ(index->runs[0].stream_id, 5u);
  EXPECT_EQ(index->runs[0].start_offset, 10);
  EXPECT_EQ(index->runs[0].end_offset, 13);
  EXPECT_EQ(index->runs[0].max_timestamp_ms, 101);
  EXPECT_EQ(index->runs[1].stream_id, 9u);
  EXPECT_EQ(index->runs[1].end_offset, 3);
  auto run = DecodeBatches(std::string_view(object).substr(index->runs[1].position, index->runs[1].length), "o");
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->front().payload.view(), "ccc");
}

TEST(ObjectFormat, TruncatedOrDamagedObjectsAreDataLoss) {
  ObjectBuilder builder(ObjectKind::kStream);
  builder.BeginRun(1);
  builder.AddBatch(Input("abc", 1), 0, 1);
  std::string object = builder.Finish();
  EXPECT_TRUE(IsDataLoss(ReadObjectIndex(object.substr(0, object.size() - 1), "x").status()));
  std::string damaged = object;
  damaged[damaged.size() - 40] ^= 1;  // inside the index
  auto r = ReadObjectIndex(damaged, "streams/1/x");
  EXPECT_TRUE(IsDataLoss(r.status()));
  EXPECT_NE(r.status().message().find("streams/1/x"), std::string::npos);
}

}  // namespace
}  // namespace mink::storage
