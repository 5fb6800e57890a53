// Speed checks of the table data path. Prints the figures (best of several runs) next to a
// memcpy of the same bytes measured in the same run, and asserts generous bounds so that a
// busy machine does not make the test flaky while a regression by an order of magnitude fails.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "arrow_format/ipc.h"
#include "arrow_format/record_batch_builder.h"

namespace mink::arrow {
namespace {

constexpr int64_t kRows = 1000000;

double BestMillis(int runs, const std::function<void()>& fn) {
  double best = 1e9;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  return best;
}

double MemcpyMillis(int64_t bytes) {
  std::vector<char> src(static_cast<size_t>(bytes), 1);
  std::vector<char> dst(static_cast<size_t>(bytes));
  return BestMillis(5, [&] {
    std::memcpy(dst.data(), src.data(), src.size());
    asm volatile("" : : "r"(dst.data()) : "memory");  // keep the copy
  });
}

TEST(PerfTest, AppendMillionInt64) {
  double ms = BestMillis(5, [] {
    Int64Builder b;
    for (int64_t i = 0; i < kRows; ++i) b.Append(i);
    auto r = b.Finish();
    ASSERT_EQ((*r)->length, kRows);
  });
  double reserved = BestMillis(5, [] {
    Int64Builder b;
    b.Reserve(kRows);
    for (int64_t i = 0; i < kRows; ++i) b.Append(i);
    auto r = b.Finish();
    ASSERT_EQ((*r)->length, kRows);
  });
  std::printf("append 1M int64: %.2f ms (reserved %.2f ms); memcpy of 8 MB: %.2f ms\n", ms,
              reserved, MemcpyMillis(kRows * 8));
  EXPECT_LT(ms, 50);
}

TEST(PerfTest, AppendMillionShortStrings) {
  std::vector<std::string> values;
  for (int i = 0; i < 1000; ++i) values.push_back("user-" + std::to_string(i * 7919));
  auto run = [&](bool reserve) {
    return BestMillis(5, [&] {
      StringBuilder b;
      if (reserve) {
        b.Reserve(kRows);
        b.ReserveData(kRows * 13);
      }
      for (int64_t i = 0; i < kRows; ++i) {
        if (!b.Append(values[static_cast<size_t>(i % 1000)]).ok()) std::abort();
      }
      auto r = b.Finish();
      ASSERT_EQ((*r)->length, kRows);
    });
  };
  double ms = run(false);
  double reserved = run(true);
  std::printf("append 1M short utf8: %.2f ms (reserved %.2f ms); memcpy of 13 MB: %.2f ms\n", ms,
              reserved, MemcpyMillis(kRows * 13));
  EXPECT_LT(reserved, 80);
}

TEST(PerfTest, IpcWriteAndReadMillionRows) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field("id", Int64()), Field("name", Utf8()), Field("score", Float64())});
  auto made = RecordBatchBuilder::Make(schema);
  ASSERT_TRUE(made.ok());
  auto& b = **made;
  b.Reserve(kRows);
  for (int64_t i = 0; i < kRows; ++i) {
    b.GetFieldAs<Int64Builder>(0)->Append(i);
    ASSERT_TRUE(b.GetFieldAs<StringBuilder>(1)->Append("name-" + std::to_string(i % 5000)).ok());
    if (i % 10 == 0) {
      b.GetFieldAs<DoubleBuilder>(2)->AppendNull();
    } else {
      b.GetFieldAs<DoubleBuilder>(2)->Append(static_cast<double>(i) * 0.5);
    }
  }
  auto batch = b.Flush();
  ASSERT_TRUE(batch.ok());
  for (CompressionCodec codec :
       {CompressionCodec::kNone, CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    std::string bytes;
    double write_ms = BestMillis(3, [&] {
      auto w = WriteStream(schema, {*batch}, {codec, 0});
      ASSERT_TRUE(w.ok());
      bytes = std::move(*w);
    });
    // Into an output buffer that is reused (already allocated), as a server's send path does.
    StreamWriter writer(schema, {codec, 0});
    std::string out;
    out.reserve(bytes.size() + 4096);
    double reused_ms = BestMillis(3, [&] {
      out.clear();
      ASSERT_TRUE(writer.WriteBatch(**batch, &out).ok());
    });
    BufferPtr input = Buffer::FromString(bytes);
    double read_ms = BestMillis(3, [&] {
      auto r = ReadStream(input);
      ASSERT_TRUE(r.ok()) << r.status();
      ASSERT_EQ(r->batches[0]->num_rows(), kRows);
    });
    std::printf(
        "IPC %-9s 1M rows (%.1f MB on the wire): write %.2f ms (%.2f ms into a reused buffer), "
        "read %.2f ms\n",
        std::string(CompressionCodecName(codec)).c_str(), static_cast<double>(bytes.size()) / 1e6,
        write_ms, reused_ms, read_ms);
    if (codec == CompressionCodec::kNone) {
      std::printf("  memcpy of the same bytes: %.2f ms\n",
                  MemcpyMillis(static_cast<int64_t>(bytes.size())));
      EXPECT_LT(reused_ms, 100);
      EXPECT_LT(read_ms, 100);  // zero-copy: validation only
    }
  }
}

}  // namespace
}  // namespace mink::arrow
