// sql::Database: SQL in, Arrow out, Arrow batches in as views; and what the lake relies on:
// Parquet written from a view carries the Iceberg field ids it is given and reads back the same.

#include "sql/database.h"

#include <gtest/gtest.h>

#include "arrow_format/builder.h"
#include "arrow_format/record_batch_builder.h"
#include "test_env.h"

namespace mink::sql {
namespace {

arrow::RecordBatchPtr Numbers(int64_t from, int64_t to) {
  auto schema = std::make_shared<arrow::Schema>(std::vector<arrow::Field>{
      arrow::Field("id", arrow::Int64(), false), arrow::Field("name", arrow::Utf8(), true)});
  auto builder = *arrow::RecordBatchBuilder::Make(schema);
  for (int64_t i = from; i < to; ++i) {
    builder->GetFieldAs<arrow::Int64Builder>(0)->Append(i);
    if (i % 10 == 0) {
      builder->GetFieldAs<arrow::StringBuilder>(1)->AppendNull();
    } else {
      EXPECT_TRUE(builder->GetFieldAs<arrow::StringBuilder>(1)->Append("n" + std::to_string(i)).ok());
    }
  }
  return *builder->Flush();
}

std::vector<std::string> FirstColumnText(const std::vector<arrow::RecordBatchPtr>& batches) {
  std::vector<std::string> out;
  for (const auto& b : batches) {
    const auto& c = b->Column(0);
    for (int64_t i = 0; i < b->num_rows(); ++i) {
      if (c->type->id() == arrow::TypeId::kInt64) {
        out.push_back(std::to_string(c->buffers[1]->data_as<int64_t>()[i]));
      } else {
        const int32_t* offsets = c->buffers[1]->data_as<int32_t>();
        out.emplace_back(c->buffers[2]->data_as<char>() + offsets[i],
                         static_cast<size_t>(offsets[i + 1] - offsets[i]));
      }
    }
  }
  return out;
}

TEST(Database, QueriesAnswerArrowAndErrorsAreStatuses) {
  auto db = Database::Open();
  ASSERT_TRUE(db.ok()) << db.status();
  auto session = (*db)->Connect();
  ASSERT_TRUE(session.ok());
  auto rows = (*session)->Collect("SELECT (40 + 2)::BIGINT AS answer");
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(FirstColumnText(*rows), std::vector<std::string>{"42"});
  auto bad = (*session)->Collect("SELECT nope");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status();
}

TEST(Database, ArrowBatchesAreViewsAndParquetCarriesFieldIds) {
  auto db = Database::Open();
  ASSERT_TRUE(db.ok()) << db.status();
  auto session = *(*db)->Connect();
  auto first = Numbers(0, 1000), second = Numbers(1000, 2500);
  ASSERT_TRUE(session->RegisterBatches("numbers", first->schema(), {first, second}).ok());
  auto sum = session->Collect("SELECT sum(id)::BIGINT FROM numbers");
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(FirstColumnText(*sum), std::vector<std::string>{std::to_string(2499 * 2500 / 2)});

  const std::string file = testing_env::MakeTempDir("sql-parquet") + "/numbers.parquet";
  ASSERT_TRUE(session
                  ->Run("COPY (SELECT * FROM numbers) TO '" + file +
                        "' (FORMAT parquet, FIELD_IDS {id: 1, name: 2})")
                  .ok());
  auto ids = session->Collect("SELECT name || '=' || field_id FROM parquet_schema('" + file +
                              "') WHERE field_id IS NOT NULL ORDER BY field_id");
  ASSERT_TRUE(ids.ok()) << ids.status();
  EXPECT_EQ(FirstColumnText(*ids), (std::vector<std::string>{"id=1", "name=2"}));
  auto back = session->Collect("SELECT id FROM read_parquet('" + file + "') WHERE name IS NULL "
                               "ORDER BY id LIMIT 3");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(FirstColumnText(*back), (std::vector<std::string>{"0", "10", "20"}));
  // A view registered again under the same name replaces the first.
  ASSERT_TRUE(session->RegisterBatches("numbers", first->schema(), {first}).ok());
  auto count = session->Collect("SELECT count(*)::BIGINT FROM numbers");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(FirstColumnText(*count), std::vector<std::string>{"1000"});
}

// A registered view read by some of its columns, or with a WHERE, answers from the right
// columns and rows (the view hands DuckDB whole batches; DuckDB projects and filters them).
TEST(Database, AViewReadByPartOfItsColumnsOrWithAFilter) {
  auto db = Database::Open();
  ASSERT_TRUE(db.ok()) << db.status();
  auto session = *(*db)->Connect();
  auto rows = Numbers(0, 100);
  ASSERT_TRUE(session->RegisterBatches("numbers", rows->schema(), {rows}).ok());
  auto names = session->Collect("SELECT name FROM numbers WHERE id BETWEEN 11 AND 13 ORDER BY name");
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(FirstColumnText(*names), (std::vector<std::string>{"n11", "n12", "n13"}));
  auto filtered = session->Collect("SELECT count(*)::BIGINT FROM numbers WHERE id >= 90");
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  EXPECT_EQ(FirstColumnText(*filtered), std::vector<std::string>{"10"});
}

}  // namespace
}  // namespace mink::sql
