// FlightSqlHandles: a handle is its maker's only, read once (statements), and bounded.

#include "query/flight_sql_handles.h"

#include <gtest/gtest.h>

namespace mink::query {
namespace {

TEST(FlightSqlHandlesTest, AStatementIsItsCallersAndReadOnce) {
  FlightSqlHandles handles;
  std::string handle = handles.AddStatement("caller-1", "SELECT 1");
  EXPECT_EQ(handles.TakeStatement("caller-2", handle).status().code(), StatusCode::kNotFound);
  auto sql = handles.TakeStatement("caller-1", handle);
  ASSERT_TRUE(sql.ok()) << sql.status().ToString();
  EXPECT_EQ(*sql, "SELECT 1");
  EXPECT_EQ(handles.TakeStatement("caller-1", handle).status().code(), StatusCode::kNotFound);
}

TEST(FlightSqlHandlesTest, APreparedStatementIsItsCallers) {
  FlightSqlHandles handles;
  auto prepared = std::make_shared<PreparedQuery>();
  prepared->sql = "SELECT 2";
  std::string handle = handles.AddPrepared("caller-1", prepared);
  EXPECT_EQ(handles.FindPrepared("caller-2", handle).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(handles.ClosePrepared("caller-2", handle).code(), StatusCode::kNotFound);
  auto found = handles.FindPrepared("caller-1", handle);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->sql, "SELECT 2");
  EXPECT_TRUE(handles.ClosePrepared("caller-1", handle).ok());
  EXPECT_EQ(handles.FindPrepared("caller-1", handle).status().code(), StatusCode::kNotFound);
}

TEST(FlightSqlHandlesTest, HandlesAreUnguessableAndBounded) {
  FlightSqlHandles handles;
  std::string first = handles.AddStatement("c", "SELECT 0");
  std::string second = handles.AddStatement("c", "SELECT 0");
  EXPECT_EQ(first.size(), 32u);  // 128 random bits, hex
  EXPECT_NE(first.substr(0, 16), second.substr(0, 16));
  for (size_t i = 0; i < FlightSqlHandles::kMaxHandles; ++i) handles.AddStatement("c", "SELECT 0");
  EXPECT_EQ(handles.TakeStatement("c", first).status().code(), StatusCode::kNotFound);  // dropped: the oldest
}

}  // namespace
}  // namespace mink::query
