// Robustness of the IPC reader on untrusted bytes: every truncation and many random mutations of
// valid streams (plain, LZ4, ZSTD, legacy framing, dictionary-encoded from Arrow JS) must give an
// error status or valid data, never a crash or an out-of-bounds read. Bounded and seeded so that
// the test is fast and reproducible; build with -fsanitize=address,undefined to check reads.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "arrow_format/array.h"
#include "arrow_format/ipc.h"
#include "base/bytes.h"
#include "base/strings.h"
#include "js_fixture.h"
#include "test_util.h"

namespace mink::arrow {
namespace {

// Iterations per corpus entry; MINK_FUZZ_ITERATIONS raises it for a longer run.
int Iterations(int default_count) {
  const char* v = std::getenv("MINK_FUZZ_ITERATIONS");
  return v != nullptr ? std::max(1, std::atoi(v)) : default_count;
}

// MINK_FUZZ_SEED varies the mutations (the default seeds keep runs reproducible).
uint64_t Seed(uint64_t default_seed) {
  const char* v = std::getenv("MINK_FUZZ_SEED");
  return v != nullptr ? default_seed ^ std::strtoull(v, nullptr, 10) : default_seed;
}

// Consumes a read result the way a caller would: every value of every batch is touched.
void Consume(const Result<StreamContents>& r) {
  if (!r.ok()) {
    EXPECT_TRUE(r.status().code() == StatusCode::kInvalidArgument ||
                r.status().code() == StatusCode::kUnimplemented)
        << r.status();
    EXPECT_FALSE(r.status().message().empty());
    return;
  }
  for (const RecordBatchPtr& batch : r->batches) {
    ASSERT_TRUE(batch->Validate().ok()) << batch->Validate();
    if (batch->num_rows() <= 100000) (void)testing::RowsJson(*batch);
  }
}

std::string DictionaryStream() { return *HexDecode(testing::kArrowJsDictionaryStreamHex); }

std::vector<std::pair<std::string, std::string>> Corpus() {
  std::vector<RecordBatchPtr> batches = {testing::AllTypesBatch(0, 6),
                                         testing::AllTypesBatch(6, 3)};
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("plain", *WriteStream(testing::AllTypesSchema(), batches));
  out.emplace_back(
      "lz4", *WriteStream(testing::AllTypesSchema(), batches, {CompressionCodec::kLz4Frame, 0}));
  out.emplace_back("zstd",
                   *WriteStream(testing::AllTypesSchema(), batches, {CompressionCodec::kZstd, 0}));
  out.emplace_back("arrow_js_dictionary", DictionaryStream());
  return out;
}

TEST(IpcFuzzTest, ArrowJsDictionaryFixtureDecodes) {
  auto read = ReadStream(Buffer::FromString(DictionaryStream()));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->schema->ToString(), "s: string\nn: int16 not null");
  ASSERT_EQ(read->batches.size(), 2u);
  std::vector<nlohmann::json> rows;
  for (const auto& b : read->batches) {
    for (auto& row : testing::RowsJson(*b)) rows.push_back(row);
  }
  std::vector<nlohmann::json> expected = {{{"s", "a"}, {"n", -1}},      {{"s", "ccc"}, {"n", 99}},
                                          {{"s", nullptr}, {"n", 199}}, {{"s", "a"}, {"n", 299}},
                                          {{"s", "dd"}, {"n", -1}},     {{"s", nullptr}, {"n", 99}},
                                          {{"s", "a"}, {"n", 199}}};
  EXPECT_EQ(rows, expected);
}

TEST(IpcFuzzTest, EveryTruncationIsAnErrorOrValidData) {
  for (const auto& [name, stream] : Corpus()) {
    SCOPED_TRACE(name);
    int ok = 0;
    for (size_t len = 0; len < stream.size(); ++len) {
      auto r = ReadStream(Buffer::FromString(stream.substr(0, len)));
      Consume(r);
      if (r.ok()) ++ok;
    }
    // Truncations at message boundaries are valid streams without an end marker.
    EXPECT_GT(ok, 0);
    EXPECT_LT(ok, static_cast<int>(stream.size()) / 8);
  }
}

TEST(IpcFuzzTest, RandomByteFlipsAreErrorsOrValidData) {
  std::mt19937_64 rng(Seed(20240601));
  for (const auto& [name, stream] : Corpus()) {
    SCOPED_TRACE(name);
    int errors = 0;
    for (int iteration = 0; iteration < Iterations(1500); ++iteration) {
      std::string mutated = stream;
      const int flips = 1 + static_cast<int>(rng() % 3);
      for (int f = 0; f < flips; ++f) {
        size_t at = rng() % mutated.size();
        mutated[at] = static_cast<char>(mutated[at] ^ static_cast<char>(1 + rng() % 255));
      }
      auto r = ReadStream(Buffer::FromString(mutated));
      Consume(r);
      if (!r.ok()) ++errors;
    }
    EXPECT_GT(errors, 0);
  }
}

TEST(IpcFuzzTest, HostileLengthsAreErrorsOrValidData) {
  // Writes extreme values over aligned words, where lengths, offsets and counts live.
  const uint64_t kValues[] = {
      0,           1,          7,         0x7FFFFFFFu,       0x80000000u,
      0xFFFFFFFFu, UINT64_MAX, INT64_MAX, uint64_t{1} << 40, uint64_t{1} << 31};
  std::mt19937_64 rng(Seed(99));
  for (const auto& [name, stream] : Corpus()) {
    SCOPED_TRACE(name);
    for (int iteration = 0; iteration < Iterations(1500); ++iteration) {
      std::string mutated = stream;
      size_t at = (rng() % (mutated.size() / 4)) * 4;
      uint64_t v = kValues[rng() % std::size(kValues)];
      const bool wide = rng() % 2 == 0 && at + 8 <= mutated.size();
      for (size_t i = 0; i < (wide ? 8u : 4u); ++i)
        mutated[at + i] = static_cast<char>(v >> (8 * i));
      Consume(ReadStream(Buffer::FromString(mutated)));
    }
  }
}

TEST(IpcFuzzTest, MutatedMessagesThroughTheDecoder) {
  std::mt19937_64 rng(Seed(5));
  RecordBatchPtr batch = testing::AllTypesBatch(0, 8);
  IpcMessage schema = EncodeSchemaMessage(*batch->schema());
  for (CompressionCodec codec : {CompressionCodec::kNone, CompressionCodec::kZstd}) {
    IpcMessage message = *EncodeRecordBatchMessage(*batch, {codec, 0});
    for (int iteration = 0; iteration < Iterations(1000); ++iteration) {
      IpcDecoder decoder;
      ASSERT_TRUE(decoder.Decode(schema.metadata, nullptr).ok());
      std::string metadata = message.metadata;
      std::string body = message.body;
      std::string& target = rng() % 2 == 0 ? metadata : body;
      if (target.empty()) continue;
      target[rng() % target.size()] ^= static_cast<char>(1 + rng() % 255);
      auto r = decoder.Decode(metadata, Buffer::FromString(body));
      if (r.ok() && r->batch) {
        ASSERT_TRUE(r->batch->Validate().ok());
        (void)testing::RowsJson(*r->batch);
      }
    }
  }
  // Schema bytes that are not a schema.
  std::string garbage(64, '\x41');
  EXPECT_FALSE(DeserializeSchema(garbage).ok());
}

}  // namespace
}  // namespace mink::arrow
