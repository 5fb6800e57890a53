// RecordBatch v2: building and decoding with every codec, xerial snappy, CRC checks, truncated
// tails, bounded decompression (zip bombs), legacy magic, offsets rewritten in place.

#include <gtest/gtest.h>

#include <snappy.h>

#include "kafka/protocol/record_batch.h"
#include "kafka/protocol/tests/test_util.h"
#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

std::vector<NewRecord> SomeRecords(int n) {
  static std::vector<std::string> storage;  // keeps the views valid
  storage.reserve(4096);
  std::vector<NewRecord> records;
  for (int i = 0; i < n; ++i) {
    NewRecord r;
    r.timestamp = 1700000000000 + i * 3 - (i == 2 ? 100 : 0);  // one negative delta
    if (i % 3 != 1) {
      storage.push_back("key-" + std::to_string(i));
      r.key = storage.back();
    }
    if (i % 4 != 3) {
      storage.push_back(std::string(50 + i, static_cast<char>('a' + i % 26)));
      r.value = storage.back();
    }
    if (i % 2 == 0) r.headers = {{"trace", std::string_view("abc")}, {"empty", std::nullopt}};
    records.push_back(std::move(r));
  }
  return records;
}

void ExpectSameRecords(const DecodedBatch& decoded, const std::vector<NewRecord>& records,
                       int64_t base_offset) {
  ASSERT_EQ(decoded.records.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) {
    const RecordView& r = decoded.records[i];
    EXPECT_EQ(r.offset, base_offset + static_cast<int64_t>(i));
    EXPECT_EQ(r.timestamp, records[i].timestamp);
    EXPECT_EQ(r.key, records[i].key);
    EXPECT_EQ(r.value, records[i].value);
    auto headers = decoded.HeadersOf(r);
    ASSERT_EQ(headers.size(), records[i].headers.size());
    for (size_t j = 0; j < headers.size(); ++j) {
      EXPECT_EQ(headers[j].key, records[i].headers[j].key);
      EXPECT_EQ(headers[j].value, records[i].headers[j].value);
    }
  }
}

class CodecTest : public ::testing::TestWithParam<Compression> {};

TEST_P(CodecTest, BuildSplitDecodeRoundTrip) {
  auto records = SomeRecords(40);
  BatchOptions options;
  options.base_offset = 1000;
  options.compression = GetParam();
  options.producer_id = 42;
  options.producer_epoch = 3;
  options.base_sequence = 17;
  auto batch = BuildRecordBatch(options, records);
  ASSERT_TRUE(batch.ok()) << batch.status();
  auto split = SplitBatches(*batch);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->size(), 1u);
  const RecordBatchHeader& h = (*split)[0].header;
  EXPECT_EQ(h.compression(), GetParam());
  EXPECT_EQ(h.base_offset, 1000);
  EXPECT_EQ(h.last_offset_delta, 39);
  EXPECT_EQ(h.records_count, 40);
  EXPECT_EQ(h.producer_id, 42);
  EXPECT_EQ(h.producer_epoch, 3);
  EXPECT_EQ(h.base_sequence, 17);
  EXPECT_EQ(h.base_timestamp, records[0].timestamp);
  EXPECT_EQ(h.max_timestamp, records[39].timestamp);
  auto decoded = DecodeBatch((*split)[0]);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameRecords(*decoded, records, 1000);
  EXPECT_EQ(decoded->storage != nullptr, GetParam() != Compression::kNone);
}

TEST_P(CodecTest, CompressionRoundTripAndLargeInputs) {
  std::string input;
  for (int i = 0; i < 200000; ++i) input += std::to_string(i * 7919 % 1000);
  auto compressed = Compress(GetParam(), input);
  ASSERT_TRUE(compressed.ok());
  auto back = Decompress(GetParam(), *compressed, input.size());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, input);
  auto too_small = Decompress(GetParam(), *compressed, input.size() - 1);
  ASSERT_FALSE(too_small.ok());
  EXPECT_EQ(too_small.status().code(), StatusCode::kResourceExhausted);
  auto empty = Compress(GetParam(), "");
  ASSERT_TRUE(empty.ok());
  auto empty_back = Decompress(GetParam(), *empty, 10);
  ASSERT_TRUE(empty_back.ok()) << empty_back.status();
  EXPECT_EQ(*empty_back, "");
}

// The tests that only make sense for real codecs.
class CompressedCodecTest : public CodecTest {};

TEST_P(CompressedCodecTest, ZipBombIsBounded) {
  // 16 MiB of zeros compresses to little; decoding with a 1 MiB bound must fail fast.
  const std::string zeros(16u << 20, '\0');
  auto bomb = Compress(GetParam(), zeros);
  ASSERT_TRUE(bomb.ok());
  EXPECT_LT(bomb->size(), 1u << 20);
  auto r = Decompress(GetParam(), *bomb, 1u << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
}

// That decompressing failed as malformed input, with `what` in the message.
void ExpectMalformed(const Result<std::string>& r, std::string_view what) {
  ASSERT_FALSE(r.ok()) << "decoded " << r->size() << " bytes";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().ToString();
}

// A zstd frame names its window in its header, and the decoder allocates it before writing a
// byte: found by kafka_record_batch_fuzzer (a 17-byte input that allocated 128 MiB).
TEST(RecordBatchTest, AZstdFrameMayNotAskForAWindowBeyondTheOutputBound) {
  // Magic, a descriptor without content size, the window byte, then one last raw block of "x".
  auto frame = [](uint8_t window_byte) {
    return std::string("\x28\xb5\x2f\xfd\x00", 5) + static_cast<char>(window_byte) +
           std::string("\x09\x00\x00x", 4);
  };
  const std::string window_128_mib = frame(17 << 3);  // 2^(10 + 17)
  const std::string window_1_mib = frame(10 << 3);    // 2^(10 + 10)

  ExpectMalformed(Decompress(Compression::kZstd, window_128_mib, 1u << 20),
                  "window is larger than 1048576 bytes");
  // The node's own bound (64 MiB) refuses it too.
  EXPECT_FALSE(Decompress(Compression::kZstd, window_128_mib, kDefaultMaxDecompressedBatchSize).ok());

  auto fits = Decompress(Compression::kZstd, window_1_mib, 1u << 20);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  EXPECT_EQ(*fits, "x");
  // A smaller bound than the window refuses the frame even though its content is one byte.
  EXPECT_FALSE(Decompress(Compression::kZstd, window_1_mib, 4096).ok());

  // zstd 0.6's format (the fuzzer's second find), whose decoder ignores the window bound.
  const std::string legacy("\x26\xb5\x2f\xfd\x5f\xff\x07\x2f\xfd\x06\x31", 11);
  ExpectMalformed(Decompress(Compression::kZstd, legacy, 1u << 20), "not of the current format");
}

// A raw snappy block starts with its uncompressed length; one that claims more than snappy can
// expand its bytes to is refused before that much is allocated.
TEST(RecordBatchTest, ASnappyBlockMayNotClaimMoreThanItsBytesCanHold) {
  std::string claim_1_mib;
  for (uint32_t v = 1u << 20; ; v >>= 7) {  // varint
    if (v < 0x80) { claim_1_mib.push_back(static_cast<char>(v)); break; }
    claim_1_mib.push_back(static_cast<char>(0x80 | (v & 0x7f)));
  }
  claim_1_mib += std::string("\x00\x00\x00", 3);
  ExpectMalformed(Decompress(Compression::kSnappy, claim_1_mib, 64u << 20),
                  "a block of 6 bytes claims 1048576 uncompressed bytes");
  // What snappy itself writes for 1 MiB of one byte is well inside the rule, and decodes.
  const std::string ones(1u << 20, '1');
  auto packed = Compress(Compression::kSnappy, ones);
  ASSERT_TRUE(packed.ok());
  auto back = Decompress(Compression::kSnappy, *packed, 64u << 20);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, ones);
}

TEST_P(CompressedCodecTest, CorruptOrTruncatedDataFailsCleanly) {
  std::string input(10000, 'q');
  for (size_t i = 0; i < input.size(); i += 7) input[i] = static_cast<char>(i);
  auto compressed = Compress(GetParam(), input);
  ASSERT_TRUE(compressed.ok());
  for (size_t n = 0; n + 1 < compressed->size(); n += std::max<size_t>(1, compressed->size() / 50)) {
    auto r = Decompress(GetParam(), compressed->substr(0, n), 1u << 20);
    if (r.ok()) {
      EXPECT_NE(*r, input) << "prefix " << n;  // never the full data from a prefix
    }
  }
  std::string flipped = *compressed;
  for (size_t i = 0; i < flipped.size(); i += 3) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
  auto r = Decompress(GetParam(), flipped, 1u << 20);
  if (r.ok()) {
    EXPECT_LE(r->size(), 1u << 20);
  }
}

INSTANTIATE_TEST_SUITE_P(AllCodecs, CodecTest,
                         ::testing::Values(Compression::kNone, Compression::kGzip,
                                           Compression::kSnappy, Compression::kLz4,
                                           Compression::kZstd),
                         [](const auto& info) { return std::string(CompressionName(info.param)); });
INSTANTIATE_TEST_SUITE_P(Compressed, CompressedCodecTest,
                         ::testing::Values(Compression::kGzip, Compression::kSnappy,
                                           Compression::kLz4, Compression::kZstd),
                         [](const auto& info) { return std::string(CompressionName(info.param)); });

TEST(RecordBatchTest, XerialSnappyIsDecoded) {
  std::string input;
  for (int i = 0; i < 100000; ++i) input += static_cast<char>('a' + (i * 31) % 26);
  CompressOptions xerial;
  xerial.snappy_xerial = true;
  auto framed = Compress(Compression::kSnappy, input, xerial);
  ASSERT_TRUE(framed.ok());
  EXPECT_EQ(testing::ToHex(framed->substr(0, 16)), "82534e4150505900" "00000001" "00000001");
  auto back = Decompress(Compression::kSnappy, *framed, input.size());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, input);

  // A hand-framed stream from raw blocks, as the Java clients write it.
  std::string hand = testing::FromHex("82534e4150505900 00000001 00000001");
  for (std::string part : {std::string("hello "), std::string("xerial")}) {
    std::string block;
    snappy::Compress(part.data(), part.size(), &block);
    AppendBe32(&hand, static_cast<uint32_t>(block.size()));
    hand += block;
  }
  auto hand_back = Decompress(Compression::kSnappy, hand, 100);
  ASSERT_TRUE(hand_back.ok()) << hand_back.status();
  EXPECT_EQ(*hand_back, "hello xerial");
  EXPECT_FALSE(Decompress(Compression::kSnappy, hand.substr(0, hand.size() - 2), 100).ok());

  // And as a batch.
  auto records = SomeRecords(5);
  BatchOptions options;
  options.compression = Compression::kSnappy;
  options.compress.snappy_xerial = true;
  auto batch = BuildRecordBatch(options, records);
  ASSERT_TRUE(batch.ok());
  auto split = SplitBatches(*batch);
  ASSERT_TRUE(split.ok());
  auto decoded = DecodeBatch((*split)[0]);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  ExpectSameRecords(*decoded, records, 0);
}

TEST(RecordBatchTest, CrcMismatchIsRefused) {
  auto batch = BuildRecordBatch({}, SomeRecords(3));
  ASSERT_TRUE(batch.ok());
  std::string bad = *batch;
  bad[bad.size() - 1] ^= 1;
  auto split = SplitBatches(bad);
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("CRC mismatch"), std::string::npos);
  SplitOptions no_crc;
  no_crc.verify_crc = false;
  EXPECT_TRUE(SplitBatches(bad, no_crc).ok());
  // The base offset and leader epoch are outside the CRC.
  std::string moved = *batch;
  SetBaseOffset(moved.data(), 123456789);
  SetPartitionLeaderEpoch(moved.data(), 9);
  auto ok = SplitBatches(moved);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)[0].header.base_offset, 123456789);
  EXPECT_EQ((*ok)[0].header.partition_leader_epoch, 9);
}

TEST(RecordBatchTest, TruncatedTailIsToleratedOnlyWhenAsked) {
  std::string records;
  ASSERT_TRUE(AppendRecordBatch({}, SomeRecords(4), &records).ok());
  const size_t first = records.size();
  BatchOptions second;
  second.base_offset = 4;
  ASSERT_TRUE(AppendRecordBatch(second, SomeRecords(6), &records).ok());
  SplitOptions fetch;
  fetch.allow_truncated_tail = true;
  for (size_t n = first; n < records.size(); ++n) {
    auto tolerant = SplitBatches(std::string_view(records).substr(0, n), fetch);
    ASSERT_TRUE(tolerant.ok()) << n << ": " << tolerant.status();
    EXPECT_EQ(tolerant->size(), 1u);
    if (n > first) {
      EXPECT_FALSE(SplitBatches(std::string_view(records).substr(0, n)).ok()) << n;
    }
  }
  auto all = SplitBatches(records);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

TEST(RecordBatchTest, LegacyMagicIsRefusedByName) {
  // A magic 1 message: offset, size, crc, magic 1, attributes, timestamp, key -1, value "v".
  const std::string legacy = testing::FromHex(
      "0000000000000000 00000016 12345678 01 00 0000018bcfe56800 ffffffff 00000001 76");
  auto split = SplitBatches(legacy);
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("magic 1"), std::string::npos) << split.status();
  std::string magic0 = legacy;
  magic0[16] = 0;
  EXPECT_NE(SplitBatches(magic0).status().message().find("magic 0"), std::string::npos);
}

TEST(RecordBatchTest, InconsistentHeadersAreRefused) {
  auto batch = BuildRecordBatch({}, SomeRecords(3));
  ASSERT_TRUE(batch.ok());
  SplitOptions no_crc;
  no_crc.verify_crc = false;
  auto decode = [&](const std::string& bytes) -> Status {
    auto split = SplitBatches(bytes, no_crc);
    if (!split.ok()) return split.status();
    auto d = DecodeBatch((*split)[0]);
    return d.ok() ? Status::Ok() : d.status();
  };
  std::string more = *batch;
  StoreBe32(more.data() + 57, 4);  // records_count too high
  EXPECT_FALSE(decode(more).ok());
  std::string fewer = *batch;
  StoreBe32(fewer.data() + 57, 2);  // bytes left after the last record
  EXPECT_FALSE(decode(fewer).ok());
  std::string huge = *batch;
  StoreBe32(huge.data() + 57, 0x7fffffff);
  EXPECT_FALSE(decode(huge).ok());
  std::string codec = *batch;
  codec[22] = 7;  // codec 7
  EXPECT_FALSE(decode(codec).ok());
  std::string short_len = *batch;
  StoreBe32(short_len.data() + 8, 10);
  EXPECT_FALSE(decode(short_len).ok());
  std::string delta = *batch;
  StoreBe32(delta.data() + 23, 1);  // lastOffsetDelta below the last record's delta
  EXPECT_FALSE(decode(delta).ok());
}

TEST(RecordBatchTest, EveryByteFlipFailsCleanlyOrDecodes) {
  auto batch = BuildRecordBatch({}, SomeRecords(6));
  ASSERT_TRUE(batch.ok());
  SplitOptions no_crc;
  no_crc.verify_crc = false;
  for (size_t i = 0; i < batch->size(); ++i) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string mutated = *batch;
      mutated[i] = static_cast<char>(mutated[i] ^ mask);
      auto split = SplitBatches(mutated, no_crc);
      if (!split.ok()) continue;
      for (const auto& b : *split) (void)DecodeBatch(b);
    }
  }
}

TEST(RecordBatchTest, AssignOffsetsRewritesBaseOffsetsInPlace) {
  std::string records;
  ASSERT_TRUE(AppendRecordBatch({}, SomeRecords(3), &records).ok());
  ASSERT_TRUE(AppendRecordBatch({}, SomeRecords(2), &records).ok());
  const std::string before = records;
  auto next = AssignOffsets(&records, 500);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 505);
  auto split = SplitBatches(records);  // CRCs still valid
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ((*split)[0].header.base_offset, 500);
  EXPECT_EQ((*split)[1].header.base_offset, 503);
  // Only the base offsets changed.
  EXPECT_EQ(records.substr(8, (*split)[0].bytes.size() - 8),
            before.substr(8, (*split)[0].bytes.size() - 8));
}

TEST(RecordBatchTest, LastSequenceWrapsLikeProducers) {
  RecordBatchHeader h;
  EXPECT_EQ(h.last_sequence(), -1);
  h.base_sequence = 10;
  h.last_offset_delta = 4;
  EXPECT_EQ(h.last_sequence(), 14);
  h.base_sequence = INT32_MAX - 1;
  h.last_offset_delta = 3;  // MAX-1, MAX, 0, 1
  EXPECT_EQ(h.last_sequence(), 1);
}

TEST(RecordBatchTest, BuilderOptions) {
  auto records = SomeRecords(3);
  records[0].offset_delta = 0;
  records[1].offset_delta = 5;
  records[2].offset_delta = 9;
  BatchOptions options;
  options.timestamp_type = TimestampType::kLogAppendTime;
  options.log_append_time = 1800000000000;
  options.transactional = true;
  auto batch = BuildRecordBatch(options, records);
  ASSERT_TRUE(batch.ok());
  auto split = SplitBatches(*batch);
  ASSERT_TRUE(split.ok());
  const auto& h = (*split)[0].header;
  EXPECT_TRUE(h.is_transactional());
  EXPECT_FALSE(h.is_control());
  EXPECT_EQ(h.timestamp_type(), TimestampType::kLogAppendTime);
  EXPECT_EQ(h.last_offset_delta, 9);
  auto decoded = DecodeBatch((*split)[0]);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->records[1].offset, 5);
  EXPECT_EQ(decoded->records[2].timestamp, 1800000000000);  // LogAppendTime: max_timestamp
  records[2].offset_delta = 5;
  EXPECT_FALSE(BuildRecordBatch({}, records).ok());
  EXPECT_FALSE(BuildRecordBatch({}, {}).ok());
}

TEST(RecordBatchTest, AppenderWritesTheBytesOfAppendRecordBatch) {
  for (int n : {1, 2, 7, 300}) {
    const auto records = SomeRecords(n);
    BatchOptions options;
    options.base_offset = 1234;
    options.producer_id = 77;
    options.producer_epoch = 0;
    options.base_sequence = 40;
    std::string expected = "prefix";
    ASSERT_TRUE(AppendRecordBatch(options, records, &expected).ok());
    std::string written = "prefix";
    RecordBatchAppender appender(&written, n == 7 ? 0 : 100);  // also when it must grow
    for (const NewRecord& r : records) {
      ASSERT_TRUE(appender.Add(r.timestamp, r.key, r.value, r.headers).ok());
    }
    EXPECT_EQ(appender.records(), n);
    ASSERT_TRUE(appender.Finish(options).ok());
    EXPECT_EQ(written, expected) << n << " records";
    auto split = SplitBatches(std::string_view(written).substr(6));
    ASSERT_TRUE(split.ok()) << split.status().ToString();
    ASSERT_EQ(split->size(), 1u);
    auto decoded = DecodeBatch((*split)[0]);
    ASSERT_TRUE(decoded.ok());
    ExpectSameRecords(*decoded, records, 1234);
  }
}

TEST(RecordBatchTest, AppenderWithoutRecordsOrWithACodecLeavesNothing) {
  std::string out = "abc";
  {
    RecordBatchAppender appender(&out, 10);
    EXPECT_FALSE(appender.Finish({}).ok());
  }
  EXPECT_EQ(out, "abc");
  RecordBatchAppender appender(&out, 10);
  ASSERT_TRUE(appender.Add(5, std::string_view("k"), std::nullopt, {}).ok());
  BatchOptions lz4;
  lz4.compression = Compression::kLz4;
  EXPECT_FALSE(appender.Finish(lz4).ok());
  EXPECT_EQ(out, "abc");
}

}  // namespace
}  // namespace mink::kafka
