#include <gtest/gtest.h>

#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

TEST(WireTest, Placeholder) { EXPECT_EQ(VarintSize(0), 1); }

}  // namespace
}  // namespace mink::kafka
