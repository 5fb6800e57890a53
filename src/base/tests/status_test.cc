#include <gtest/gtest.h>

#include "base/result.h"
#include "base/status.h"

namespace mink {
namespace {

Result<int> Half(int v) {
  if (v % 2 != 0) return InvalidArgumentError("odd: " + std::to_string(v));
  return v / 2;
}

Result<int> Quarter(int v) {
  MINK_ASSIGN_OR_RETURN(int h, Half(v));
  MINK_ASSIGN_OR_RETURN(int q, Half(h));
  return q;
}

TEST(Status, OkCarriesNoMessage) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(Status, ErrorKeepsCodeAndMessageAndContext) {
  Status s = DataLossError("checksum mismatch").WithContext("object wal/1/2");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(s.ToString(), "DataLoss: object wal/1/2: checksum mismatch");
}

TEST(Result, PropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(12), 3);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd: 3");
}

TEST(Result, OkStatusBecomesInternalError) {
  Result<int> r{Status::Ok()};
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace mink
