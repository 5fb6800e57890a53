#include "arrow_format/ipc.h"

#include <gtest/gtest.h>

#include <random>

#include "arrow_format/array.h"
#include "arrow_format/compression.h"
#include "arrow_format/record_batch_builder.h"
#include "base/bytes.h"
#include "test_util.h"

namespace mink::arrow {
namespace {

using testing::AllTypesBatch;
using testing::AllTypesSchema;

class IpcRoundTrip : public ::testing::TestWithParam<CompressionCodec> {};

TEST_P(IpcRoundTrip, EveryTypeWithNullsSurvivesAStream) {
  IpcWriteOptions options;
  options.compression = GetParam();
  std::vector<RecordBatchPtr> batches = {AllTypesBatch(0, 37), AllTypesBatch(37, 0),
                                         AllTypesBatch(37, 100)};
  auto bytes = WriteStream(AllTypesSchema(), batches, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->size() % 8, 0u);
  auto read = ReadStream(Buffer::FromString(*bytes));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->schema->Equals(*AllTypesSchema()));
  ASSERT_EQ(read->batches.size(), batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    EXPECT_TRUE(read->batches[i]->Validate().ok());
    EXPECT_TRUE(read->batches[i]->Equals(*batches[i])) << "batch " << i;
    EXPECT_EQ(testing::RowsJson(*read->batches[i]), testing::RowsJson(*batches[i]));
  }
}

TEST_P(IpcRoundTrip, MessageApiRoundTrips) {
  IpcWriteOptions options;
  options.compression = GetParam();
  RecordBatchPtr batch = AllTypesBatch(5, 64);
  IpcMessage schema_message = EncodeSchemaMessage(*batch->schema());
  EXPECT_TRUE(schema_message.body.empty());
  auto batch_message = EncodeRecordBatchMessage(*batch, options);
  ASSERT_TRUE(batch_message.ok()) << batch_message.status();
  EXPECT_EQ(batch_message->body.size() % 8, 0u);

  IpcDecoder decoder;
  auto s = decoder.Decode(schema_message.metadata, nullptr);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->kind, IpcDecoder::Kind::kSchema);
  auto b = decoder.Decode(batch_message->metadata, Buffer::FromString(batch_message->body));
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_EQ(b->kind, IpcDecoder::Kind::kRecordBatch);
  EXPECT_TRUE(b->batch->Equals(*batch));
}

TEST_P(IpcRoundTrip, ProjectedDecodeReturnsOnlyTheChosenColumns) {
  IpcWriteOptions options;
  options.compression = GetParam();
  RecordBatchPtr batch = AllTypesBatch(3, 50);
  IpcMessage schema_message = EncodeSchemaMessage(*batch->schema());
  auto batch_message = EncodeRecordBatchMessage(*batch, options);
  ASSERT_TRUE(batch_message.ok());
  IpcDecoder decoder;
  ASSERT_TRUE(decoder.Decode(schema_message.metadata, nullptr).ok());
  const int n = batch->num_columns();
  // Every column alone, and a reordered pair.
  for (int c = 0; c < n; ++c) {
    auto one = decoder.DecodeProjected(batch_message->metadata,
                                       Buffer::FromString(batch_message->body), {c});
    ASSERT_TRUE(one.ok()) << c << ": " << one.status();
    auto expected = batch->SelectColumns({c});
    ASSERT_TRUE(expected.ok());
    EXPECT_TRUE(one->batch->Equals(**expected)) << "column " << c;
  }
  auto pair = decoder.DecodeProjected(batch_message->metadata,
                                      Buffer::FromString(batch_message->body), {n - 1, 0});
  ASSERT_TRUE(pair.ok());
  EXPECT_TRUE(pair->batch->Equals(**batch->SelectColumns({n - 1, 0})));
  EXPECT_FALSE(decoder.DecodeProjected(batch_message->metadata,
                                       Buffer::FromString(batch_message->body), {n})
                   .ok());
}

TEST_P(IpcRoundTrip, LargeCompressibleBatch) {
  IpcWriteOptions options;
  options.compression = GetParam();
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("id", Int64()), Field("name", Utf8()), Field("flag", Bool())});
  auto made = RecordBatchBuilder::Make(schema);
  ASSERT_TRUE(made.ok());
  auto& b = **made;
  for (int64_t i = 0; i < 100000; ++i) {
    b.GetFieldAs<Int64Builder>(0)->Append(i);
    ASSERT_TRUE(b.GetFieldAs<StringBuilder>(1)->Append("user-" + std::to_string(i % 100)).ok());
    b.GetFieldAs<BooleanBuilder>(2)->Append(i % 2 == 0);
  }
  auto batch = b.Flush();
  ASSERT_TRUE(batch.ok());
  auto bytes = WriteStream(schema, {*batch}, options);
  ASSERT_TRUE(bytes.ok());
  if (GetParam() != CompressionCodec::kNone) {
    auto plain = WriteStream(schema, {*batch});
    ASSERT_TRUE(plain.ok());
    EXPECT_LT(bytes->size(), plain->size() / 2) << "compression should pay on this data";
  }
  auto read = ReadStream(Buffer::FromString(*bytes));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->batches[0]->Equals(**batch));
}

INSTANTIATE_TEST_SUITE_P(Codecs, IpcRoundTrip,
                         ::testing::Values(CompressionCodec::kNone, CompressionCodec::kLz4Frame,
                                           CompressionCodec::kZstd),
                         [](const auto& info) {
                           return std::string(CompressionCodecName(info.param));
                         });

TEST(IpcTest, UncompressedReadReferencesTheInput) {
  RecordBatchPtr batch = AllTypesBatch(0, 40);
  auto bytes = WriteStream(batch->schema(), {batch});
  ASSERT_TRUE(bytes.ok());
  BufferPtr input = Buffer::FromString(*bytes);
  auto read = ReadStream(input);
  ASSERT_TRUE(read.ok()) << read.status();
  const uint8_t* begin = input->data();
  const uint8_t* end = begin + input->size();
  const uint8_t* values = read->batches[0]->Column(5)->buffers[1]->data();
  EXPECT_TRUE(values >= begin && values < end) << "int64 values were copied";
  const uint8_t* chars = read->batches[0]->Column(13)->buffers[2]->data();
  EXPECT_TRUE(chars >= begin && chars < end) << "utf8 data was copied";
  // The arrays keep the input alive.
  RecordBatchPtr kept = read->batches[0];
  read = Status(InternalError("drop"));
  input.reset();
  EXPECT_TRUE(kept->Equals(*batch));
}

TEST(IpcTest, IncompressibleBuffersAreStoredRawWithMinusOne) {
  std::mt19937_64 rng(7);
  Int64Builder b;
  for (int i = 0; i < 512; ++i) b.Append(static_cast<int64_t>(rng()));
  auto column = b.Finish();
  ASSERT_TRUE(column.ok());
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("r", Int64())});
  auto batch = RecordBatch::Make(schema, 512, {*column});
  ASSERT_TRUE(batch.ok());
  for (CompressionCodec codec : {CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    auto message = EncodeRecordBatchMessage(**batch, {codec, 0});
    ASSERT_TRUE(message.ok());
    // Buffers: validity (empty, no nulls) then values at body offset 0.
    ASSERT_GE(message->body.size(), 8u + 512 * 8);
    EXPECT_EQ(static_cast<int64_t>(LoadU64(message->body.data())), -1);
    EXPECT_EQ(std::memcmp(message->body.data() + 8, (*column)->buffers[1]->data(), 512 * 8), 0);
    IpcDecoder decoder;
    ASSERT_TRUE(decoder.Decode(EncodeSchemaMessage(*schema).metadata, nullptr).ok());
    auto decoded = decoder.Decode(message->metadata, Buffer::FromString(message->body));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(decoded->batch->Equals(**batch));
  }
}

// A large buffer is compressed whole only if a sample from its start compresses: random bytes
// are stored raw without a full pass of the codec, data that compresses still is compressed.
TEST(IpcTest, LargeBuffersWhoseStartDoesNotCompressAreStoredRaw) {
  constexpr int kRows = 32 << 10;  // 256 KiB of values
  std::mt19937_64 rng(11);
  Int64Builder random, random_then_zeros, repeated;
  for (int i = 0; i < kRows; ++i) {
    random.Append(static_cast<int64_t>(rng()));
    // The first 16 KiB random, the rest zeros: judged by its start, so stored raw.
    random_then_zeros.Append(i < 2048 ? static_cast<int64_t>(rng()) : 0);
    repeated.Append(i % 100);
  }
  std::vector<ArrayDataPtr> columns;
  for (Int64Builder* b : {&random, &random_then_zeros, &repeated}) {
    auto column = b->Finish();
    ASSERT_TRUE(column.ok());
    columns.push_back(*column);
  }
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("a", Int64()), Field("b", Int64()), Field("c", Int64())});
  auto batch = RecordBatch::Make(schema, kRows, columns);
  ASSERT_TRUE(batch.ok());
  for (CompressionCodec codec : {CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    auto message = EncodeRecordBatchMessage(**batch, {codec, 0});
    ASSERT_TRUE(message.ok()) << message.status();
    // Buffers in order, 8-byte aligned, validity ones empty: a's values, b's values, c's values.
    const char* body = message->body.data();
    const size_t raw = 8 + kRows * 8;
    EXPECT_EQ(static_cast<int64_t>(LoadU64(body)), -1) << CompressionCodecName(codec);
    EXPECT_EQ(std::memcmp(body + 8, columns[0]->buffers[1]->data(), kRows * 8), 0);
    EXPECT_EQ(static_cast<int64_t>(LoadU64(body + raw)), -1) << CompressionCodecName(codec);
    EXPECT_EQ(static_cast<int64_t>(LoadU64(body + 2 * raw)), kRows * 8)
        << CompressionCodecName(codec) << ": the repeated column is compressed";
    EXPECT_LT(message->body.size(), 2 * raw + kRows * 8 / 4);
    IpcDecoder decoder;
    ASSERT_TRUE(decoder.Decode(EncodeSchemaMessage(*schema).metadata, nullptr).ok());
    auto decoded = decoder.Decode(message->metadata, Buffer::FromString(message->body));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(decoded->batch->Equals(**batch));
  }
}

TEST(IpcTest, CompressibleBuffersCarryTheirUncompressedLength) {
  Int64Builder b;
  for (int i = 0; i < 1000; ++i) b.Append(42);
  auto column = b.Finish();
  ASSERT_TRUE(column.ok());
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("c", Int64())});
  auto batch = RecordBatch::Make(schema, 1000, {*column});
  ASSERT_TRUE(batch.ok());
  auto message = EncodeRecordBatchMessage(**batch, {CompressionCodec::kZstd, 0});
  ASSERT_TRUE(message.ok());
  EXPECT_EQ(static_cast<int64_t>(LoadU64(message->body.data())), 8000);
  EXPECT_LT(message->body.size(), 400u);
}

TEST(IpcTest, EncapsulatedSchemaRoundTrips) {
  std::string bytes = SerializeSchema(*AllTypesSchema());
  EXPECT_EQ(LoadU32(bytes.data()), 0xFFFFFFFFu);
  EXPECT_EQ(bytes.size() % 8, 0u);
  EXPECT_EQ(static_cast<size_t>(LoadU32(bytes.data() + 4)) + 8, bytes.size());
  auto schema = DeserializeSchema(bytes);
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_TRUE((*schema)->Equals(*AllTypesSchema()));
  // Without the continuation marker (legacy prefix).
  auto legacy = DeserializeSchema(std::string_view(bytes).substr(4));
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_TRUE((*legacy)->Equals(*AllTypesSchema()));
  EXPECT_FALSE(DeserializeSchema("").ok());
  EXPECT_FALSE(DeserializeSchema(std::string_view(bytes).substr(0, 20)).ok());
}

// Frames a message the pre-0.15 way: a 4-byte length, metadata padded so that the body starts
// 8-byte aligned, then the body.
void AppendLegacy(const IpcMessage& message, std::string* out) {
  std::string metadata = message.metadata;
  while ((4 + metadata.size()) % 8 != 0) metadata.push_back('\0');
  PutU32(out, static_cast<uint32_t>(metadata.size()));
  out->append(metadata);
  out->append(message.body);
}

TEST(IpcTest, ReadsLegacyFramingAndStreamsWithoutEndMarker) {
  RecordBatchPtr batch = AllTypesBatch(0, 3);
  auto bytes = WriteStream(batch->schema(), {batch});
  ASSERT_TRUE(bytes.ok());
  std::string legacy;
  AppendLegacy(EncodeSchemaMessage(*batch->schema()), &legacy);
  AppendLegacy(*EncodeRecordBatchMessage(*batch), &legacy);
  PutU32(&legacy, 0);
  auto read = ReadStream(Buffer::FromString(legacy));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->batches.size(), 1u);
  EXPECT_TRUE(read->batches[0]->Equals(*batch));

  std::string no_eos = bytes->substr(0, bytes->size() - 8);
  read = ReadStream(Buffer::FromString(no_eos));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->batches.size(), 1u);
  EXPECT_TRUE(read->batches[0]->Equals(*batch));
}

TEST(IpcTest, StreamWriterAppendsIncrementally) {
  SchemaPtr schema = AllTypesSchema();
  StreamWriter writer(schema, {CompressionCodec::kLz4Frame, 0});
  std::string out;
  ASSERT_TRUE(writer.WriteBatch(*AllTypesBatch(0, 5), &out).ok());
  size_t after_first = out.size();
  ASSERT_TRUE(writer.WriteBatch(*AllTypesBatch(5, 5), &out).ok());
  EXPECT_GT(out.size(), after_first);
  writer.WriteEnd(&out);
  auto reader = StreamReader::Open(Buffer::FromString(out));
  ASSERT_TRUE(reader.ok()) << reader.status();
  int batches = 0;
  while (true) {
    auto next = (*reader)->Next();
    ASSERT_TRUE(next.ok()) << next.status();
    if (!*next) break;
    EXPECT_TRUE((*next)->Equals(*AllTypesBatch(5 * batches, 5)));
    ++batches;
  }
  EXPECT_EQ(batches, 2);

  auto other = std::make_shared<const Schema>(std::vector<Field>{Field("x", Int32())});
  Int32Builder b;
  b.Append(1);
  auto col = b.Finish();
  auto wrong = RecordBatch::Make(other, 1, {*col});
  EXPECT_EQ(writer.WriteBatch(**wrong, &out).code(), StatusCode::kInvalidArgument);
}

TEST(IpcTest, MalformedStreamsAreInvalidArgumentWithAReason) {
  auto bytes = WriteStream(AllTypesSchema(), {AllTypesBatch(0, 4)});
  ASSERT_TRUE(bytes.ok());
  auto expect_invalid = [](const std::string& input, const std::string& words) {
    auto read = ReadStream(Buffer::FromString(input));
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << read.status();
    EXPECT_NE(read.status().message().find(words), std::string::npos) << read.status();
  };
  expect_invalid("", "no schema");
  expect_invalid(bytes->substr(0, 6), "truncated message prefix");
  expect_invalid(bytes->substr(0, 100), "runs past the end");
  std::string garbage = *bytes;
  std::memset(garbage.data() + 8, 0x7f, 16);
  expect_invalid(garbage, "not a valid flatbuffer");
  std::string negative = *bytes;
  StoreU32(negative.data() + 4, 0x80000000u);
  expect_invalid(negative, "negative metadata length");

  // A record batch before the schema.
  IpcMessage batch = *EncodeRecordBatchMessage(*AllTypesBatch(0, 2));
  IpcDecoder decoder;
  auto decoded = decoder.Decode(batch.metadata, Buffer::FromString(batch.body));
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
  // A body shorter than bodyLength.
  ASSERT_TRUE(decoder.Decode(EncodeSchemaMessage(*AllTypesSchema()).metadata, nullptr).ok());
  decoded = decoder.Decode(batch.metadata, Buffer::FromString(batch.body.substr(0, 8)));
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(decoded.status().message().find("body"), std::string::npos);
  // A second schema.
  decoded = decoder.Decode(EncodeSchemaMessage(*AllTypesSchema()).metadata, nullptr);
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
}

// A buffer of unknown size is decompressed to fit a bound; its zstd frame may not name a window
// beyond that bound (the decoder would allocate the window first, up to 128 MiB).
TEST(IpcTest, AZstdBufferOfUnknownSizeMayNotAskForAWindowBeyondItsBound) {
  // Magic, a descriptor without content size, the window byte, then one last raw block of "x".
  auto frame = [](uint8_t window_byte) {
    return std::string("\x28\xb5\x2f\xfd\x00", 5) + static_cast<char>(window_byte) +
           std::string("\x09\x00\x00x", 4);
  };
  auto refused = DecompressBufferToFit(CompressionCodec::kZstd, frame(17 << 3), 1 << 20);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("window is larger than 1048576 bytes"),
            std::string::npos)
      << refused.status().ToString();
  auto fits = DecompressBufferToFit(CompressionCodec::kZstd, frame(10 << 3), 1 << 20);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_EQ(*fits, "x");
  // The bound does not stay with the thread's context: a buffer of known size decodes after it.
  ASSERT_FALSE(DecompressBufferToFit(CompressionCodec::kZstd, frame(10 << 3), 10).ok());
  uint8_t out = 0;
  EXPECT_TRUE(DecompressBuffer(CompressionCodec::kZstd, frame(17 << 3), &out, 1).ok());
  EXPECT_EQ(out, 'x');
  // zstd 0.6's format, whose decoder ignores the window bound.
  const std::string legacy("\x26\xb5\x2f\xfd\x5f\xff\x07\x2f\xfd\x06\x31", 11);
  auto old_format = DecompressBufferToFit(CompressionCodec::kZstd, legacy, 1 << 20);
  ASSERT_FALSE(old_format.ok());
  EXPECT_NE(old_format.status().message().find("not of the current format"), std::string::npos)
      << old_format.status().ToString();
}

}  // namespace
}  // namespace mink::arrow
