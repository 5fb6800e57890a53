// The keyed aggregate of materialised views: per-key changes (new keys, updates, deletes once
// every row is retracted), a global aggregate as one group, nothing for a key that ends where it
// started.
#include "stream/keyed_aggregate.h"

#include <gtest/gtest.h>

namespace mink::stream {
namespace {

using Scalars = std::vector<Scalar>;

TEST(KeyedAggregate, AGlobalAggregateIsOneGroup) {
  // SELECT COUNT(*) AS rows_seen, MAX(seq) AS last_seq FROM ticks
  KeyedAggregate view({AggregateKind::kCountRows, AggregateKind::kMax});
  EXPECT_TRUE(view.TakeChanges().empty());
  for (int64_t seq = 0; seq < 46; ++seq) ASSERT_TRUE(view.Add({}, {Scalar(), Scalar::Int(seq)}).ok());
  EXPECT_EQ(view.TakeChanges(),
            (std::vector<KeyChange>{{{}, std::nullopt, Scalars{Scalar::Int(46), Scalar::Int(45)}}}));
  ASSERT_TRUE(view.Add({}, {Scalar(), Scalar::Int(46)}).ok());
  EXPECT_EQ(view.TakeChanges(),
            (std::vector<KeyChange>{{{}, Scalars{Scalar::Int(46), Scalar::Int(45)},
                                     Scalars{Scalar::Int(47), Scalar::Int(46)}}}));
  EXPECT_TRUE(view.TakeChanges().empty()) << "nothing changed since";
}

TEST(KeyedAggregate, KeysComeGoAndUpdateFromAChangelog) {
  KeyedAggregate view({AggregateKind::kSum});
  const Scalars a{Scalar::String("a")}, b{Scalar::String("b")};
  ASSERT_TRUE(view.Add(a, {Scalar::Int(5)}).ok());
  ASSERT_TRUE(view.Add(b, {Scalar::Int(7)}).ok());
  EXPECT_EQ(view.TakeChanges().size(), 2u);
  // An update of a's row (update-before 5, update-after 6), b's row deleted.
  ASSERT_TRUE(view.Add(a, {Scalar::Int(5)}, -1).ok());
  ASSERT_TRUE(view.Add(a, {Scalar::Int(6)}).ok());
  ASSERT_TRUE(view.Add(b, {Scalar::Int(7)}, -1).ok());
  EXPECT_EQ(view.TakeChanges(), (std::vector<KeyChange>{{a, Scalars{Scalar::Int(5)}, Scalars{Scalar::Int(6)}},
                                                        {b, Scalars{Scalar::Int(7)}, std::nullopt}}));
  EXPECT_EQ(view.keys(), 1u);
  // A row added and retracted again between two calls changes nothing.
  ASSERT_TRUE(view.Add(a, {Scalar::Int(1)}).ok());
  ASSERT_TRUE(view.Add(a, {Scalar::Int(1)}, -1).ok());
  EXPECT_TRUE(view.TakeChanges().empty());
  EXPECT_EQ(view.Add(b, {Scalar::Int(7)}, -1).code(), StatusCode::kFailedPrecondition);
  // a holds one row: retracting it deletes a; retracting another is refused.
  ASSERT_TRUE(view.Add(a, {Scalar::Int(6)}, -1).ok());
  EXPECT_EQ(view.Add(a, {Scalar::Int(6)}, -1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(view.TakeChanges(), (std::vector<KeyChange>{{a, Scalars{Scalar::Int(6)}, std::nullopt}}));
  EXPECT_EQ(view.keys(), 0u);
}

}  // namespace
}  // namespace mink::stream
