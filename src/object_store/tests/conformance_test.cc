// One conformance suite, run against every ObjectStore backend: file://, mem:// and s3:// (against
// the S3 server the test harness starts; MINK_TEST_S3_URI names it).

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <thread>

#include "object_store/file_store.h"
#include "object_store/memory_store.h"
#include "object_store/storage_uri.h"
#include "test_env.h"

namespace mink::object_store {
namespace {

class Conformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& backend = GetParam();
    if (backend == "file") {
      dir_ = testing_env::MakeTempDir("objstore");
      auto opened = FileStore::Open(dir_);
      ASSERT_TRUE(opened.ok()) << opened.status();
      store_ = std::move(*opened);
    } else if (backend == "mem") {
      store_ = std::make_shared<MemoryStore>();
    } else {
      std::string uri = testing_env::RequiredEnv("MINK_TEST_S3_URI");
      if (uri.empty()) GTEST_SKIP() << "MINK_TEST_S3_URI is not set";
      auto parsed = StorageUri::Parse(uri);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      auto opened = OpenObjectStore(*parsed);
      ASSERT_TRUE(opened.ok()) << opened.status();
      store_ = *opened;
    }
    // Every test writes under its own prefix, so runs against a shared server do not collide.
    prefix_ = "t" + std::to_string(std::random_device{}()) + "/";
  }

  std::string Key(const std::string& k) const { return prefix_ + k; }

  std::shared_ptr<ObjectStore> store_;
  std::string dir_;
  std::string prefix_;
};

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

TEST_P(Conformance, PutThenGetReturnsTheSameBytes) {
  std::string data = RandomBytes(100'000, 1);
  ASSERT_TRUE(store_->Put(Key("a/b/obj"), data).ok());
  auto got = store_->Get(Key("a/b/obj"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, data);
}

TEST_P(Conformance, EmptyObjectRoundTrips) {
  ASSERT_TRUE(store_->Put(Key("empty"), "").ok());
  auto got = store_->Get(Key("empty"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, "");
  auto head = store_->Head(Key("empty"));
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->size, 0u);
}

TEST_P(Conformance, GetOfAMissingKeyIsNotFound) {
  auto got = store_->Get(Key("missing"));
  EXPECT_EQ(got.status().code(), StatusCode::kNotFound) << got.status();
  EXPECT_EQ(store_->Head(Key("missing")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->GetRange(Key("missing"), 0, 10).status().code(), StatusCode::kNotFound);
}

TEST_P(Conformance, GetRangeReturnsTheSliceAndClampsAtTheEnd) {
  std::string data = RandomBytes(5000, 2);
  ASSERT_TRUE(store_->Put(Key("ranged"), data).ok());
  auto mid = store_->GetRange(Key("ranged"), 1000, 123);
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_EQ(*mid, data.substr(1000, 123));
  auto tail = store_->GetRange(Key("ranged"), 4990, 100);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, data.substr(4990));
  auto beyond = store_->GetRange(Key("ranged"), 5000, 10);
  EXPECT_EQ(beyond.status().code(), StatusCode::kOutOfRange) << beyond.status();
}

// file:// reads ranges of 64 KiB or more read for the first time with O_DIRECT, through an
// aligned block around them, and the others through the page cache.
TEST_P(Conformance, LargeUnalignedRangesReadBackExactly) {
  const std::string data = RandomBytes(1'000'003, 5);  // the end is not on a block boundary
  ASSERT_TRUE(store_->Put(Key("large"), data).ok());
  for (Reuse reuse : {Reuse::kFirstRead, Reuse::kRereading}) {
    for (auto [offset, length] : std::vector<std::pair<uint64_t, uint64_t>>{
             {0, 1'000'003}, {12'345, 300'000}, {4096, 65'536}, {900'001, 500'000},
             {999'000, 70'000}, {65'535, 65'537}}) {
      auto got = store_->GetRangeBuffer(Key("large"), offset, length, reuse);
      ASSERT_TRUE(got.ok()) << got.status() << " at " << offset;
      EXPECT_EQ(got->view(), data.substr(offset, length))
          << "at " << offset << " length " << length << " reuse " << static_cast<int>(reuse);
    }
  }
  // Moving a buffer keeps its bytes (a string-held one included).
  auto big = store_->GetRangeBuffer(Key("large"), 100, 200'000, Reuse::kFirstRead);
  ASSERT_TRUE(big.ok());
  object_store::Buffer moved = std::move(*big);
  EXPECT_EQ(moved.view(), data.substr(100, 200'000));
  object_store::Buffer text(std::string("abc"));
  object_store::Buffer text_moved = std::move(text);
  EXPECT_EQ(text_moved.view(), "abc");
}

TEST_P(Conformance, GetRangeBufferAgreesWithGetRange) {
  std::string data = RandomBytes(5000, 3);
  ASSERT_TRUE(store_->Put(Key("buffered"), data).ok());
  auto mid = store_->GetRangeBuffer(Key("buffered"), 1000, 123, Reuse::kFirstRead);
  ASSERT_TRUE(mid.ok()) << mid.status();
  EXPECT_EQ(mid->view(), data.substr(1000, 123));
  auto tail = store_->GetRangeBuffer(Key("buffered"), 4990, 100, Reuse::kFirstRead);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(tail->view(), data.substr(4990));
  auto none = store_->GetRangeBuffer(Key("buffered"), 7, 0, Reuse::kFirstRead);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(none->size(), 0u);
  EXPECT_EQ(store_->GetRangeBuffer(Key("buffered"), 5000, 10, Reuse::kFirstRead).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_EQ(store_->GetRangeBuffer(Key("missing"), 0, 10, Reuse::kFirstRead).status().code(),
            StatusCode::kNotFound);
}

TEST_P(Conformance, HeadReportsTheSize) {
  ASSERT_TRUE(store_->Put(Key("sized"), std::string(777, 'x')).ok());
  auto head = store_->Head(Key("sized"));
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->size, 777u);
  EXPECT_EQ(head->key, Key("sized"));
  EXPECT_GT(head->last_modified_ms, 0);
}

TEST_P(Conformance, ListReturnsEveryKeyWithThePrefixInOrder) {
  std::vector<std::string> expected;
  for (int i = 0; i < 30; ++i) {
    std::string k = Key("list/" + std::string(i % 2 ? "odd/" : "even/") + std::to_string(100 + i));
    ASSERT_TRUE(store_->Put(k, std::to_string(i)).ok());
    expected.push_back(k);
  }
  ASSERT_TRUE(store_->Put(Key("listx"), "not under list/").ok());
  std::sort(expected.begin(), expected.end());
  auto listed = store_->List(Key("list/"));
  ASSERT_TRUE(listed.ok()) << listed.status();
  std::vector<std::string> keys;
  for (const auto& info : *listed) keys.push_back(info.key);
  EXPECT_EQ(keys, expected);
  auto odd = store_->List(Key("list/odd/"));
  ASSERT_TRUE(odd.ok());
  EXPECT_EQ(odd->size(), 15u);
  auto partial = store_->List(Key("list/even/10"));
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial->size(), 5u);  // 100, 102, 104, 106, 108
  auto none = store_->List(Key("nothing/"));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(Conformance, DeleteRemovesAndIsIdempotent) {
  ASSERT_TRUE(store_->Put(Key("gone"), "bytes").ok());
  ASSERT_TRUE(store_->Delete(Key("gone")).ok());
  EXPECT_EQ(store_->Get(Key("gone")).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(store_->Delete(Key("gone")).ok());
  auto listed = store_->List(Key("gone"));
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
}

TEST_P(Conformance, InvalidKeysAreRejected) {
  for (const char* bad : {"", "/abs", "a//b", "a/../b", "sp ace", "trailing/"}) {
    EXPECT_EQ(store_->Put(bad, "x").code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST_P(Conformance, LargeObjectRoundTrips) {
  // Large enough to take the multipart path of the S3 backend.
  std::string data = RandomBytes(12 << 20, 3);
  ASSERT_TRUE(store_->Put(Key("large"), data).ok());
  auto head = store_->Head(Key("large"));
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->size, data.size());
  auto slice = store_->GetRange(Key("large"), (8 << 20) - 5, 10);
  ASSERT_TRUE(slice.ok()) << slice.status();
  EXPECT_EQ(*slice, data.substr((8 << 20) - 5, 10));
  auto got = store_->Get(Key("large"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == data);
}

TEST_P(Conformance, ConcurrentPutsAllLand) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        std::string k = Key("conc/" + std::to_string(t) + "-" + std::to_string(i));
        EXPECT_TRUE(store_->Put(k, k).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto listed = store_->List(Key("conc/"));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 40u);
  for (const auto& info : *listed) EXPECT_EQ(*store_->Get(info.key), info.key);
}

TEST_P(Conformance, PutUnpublishedStoresTheWholeObjectInNewDirectoriesToo) {
  std::string data = RandomBytes(300'000, 4);
  ASSERT_TRUE(store_->PutUnpublished(Key("wal/n1/e2/000000000001"), data).ok());
  auto got = store_->Get(Key("wal/n1/e2/000000000001"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == data);
  ASSERT_TRUE(store_->PutUnpublished(Key("empty-unpublished"), "").ok());
  EXPECT_EQ(*store_->Get(Key("empty-unpublished")), "");
}

TEST_P(Conformance, ARetriedPutUnpublishedLeavesOnlyTheLastBytes) {
  // An upload retried under the same key after a failure: nothing of the first attempt remains.
  ASSERT_TRUE(store_->PutUnpublished(Key("retried"), RandomBytes(50'000, 5)).ok());
  std::string second = RandomBytes(20'000, 6);
  ASSERT_TRUE(store_->PutUnpublished(Key("retried"), second).ok());
  auto got = store_->Get(Key("retried"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(*got == second);
}

enum class PutKind { kPut, kUnpublished, kBackground };

// Writes objects of `sizes` in turn under one key, each replacing the one before, with the put
// of `kind`, and checks each reads back with its exact size and bytes.
void ExpectEachReadsBackExactly(ObjectStore& store, const std::string& key, PutKind kind,
                                std::initializer_list<size_t> sizes) {
  for (size_t size : sizes) {
    std::string data = RandomBytes(size, size % 97);
    Status put = kind == PutKind::kUnpublished  ? store.PutUnpublished(key, data)
                 : kind == PutKind::kBackground ? store.PutInBackground(key, data)
                                                : store.Put(key, data);
    ASSERT_TRUE(put.ok()) << put;
    auto head = store.Head(key);
    ASSERT_TRUE(head.ok()) << head.status();
    EXPECT_EQ(head->size, size);
    auto got = store.Get(key);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(*got == data) << size;
  }
}

TEST_P(Conformance, LargePutUnpublishedObjectsKeepTheirExactSize) {
  // file:// writes these with O_DIRECT, padded to 4 KiB and cut back: sizes on and off the
  // alignment, and a retry with a smaller object, must read back byte for byte.
  ExpectEachReadsBackExactly(*store_, Key("direct"), PutKind::kUnpublished,
                             {size_t{70} * 4096, size_t{600'001}, size_t{280'000}});
}

TEST_P(Conformance, LargePutsKeepTheirExactSizeOnAndAroundPieceBoundaries) {
  // file:// writes large Puts and background Puts with O_DIRECT 1 MiB at a time, the last piece
  // padded to 4 KiB and cut back: sizes at, below and above a piece, and a replacement by a
  // smaller object.
  for (PutKind kind : {PutKind::kPut, PutKind::kBackground}) {
    ExpectEachReadsBackExactly(
        *store_, Key("pieces"), kind,
        {size_t{1} << 20, (size_t{1} << 20) - 1, (size_t{3} << 20) + 4097, size_t{300'001}});
  }
}

TEST_P(Conformance, ConcurrentPutUnpublishedAllLand) {
  // Several uploads share the directory fsyncs of the file backend.
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        std::string k = Key("uconc/" + std::to_string(t) + "-" + std::to_string(i));
        EXPECT_TRUE(store_->PutUnpublished(k, k + RandomBytes(1000, i)).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  auto listed = store_->List(Key("uconc/"));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 40u);
  for (const auto& info : *listed) EXPECT_EQ(store_->Get(info.key)->substr(0, info.key.size()), info.key);
}

INSTANTIATE_TEST_SUITE_P(Backends, Conformance, ::testing::Values("file", "mem", "s3"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mink::object_store
