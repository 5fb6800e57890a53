// ScanRecorder: a reader of the reports waits for the scans that began, since DuckDB may destroy
// a scan's state (which reports) on a worker thread after the query's result is complete.

#include "query/scan_report.h"

#include <gtest/gtest.h>

#include <thread>

namespace mink::query {
namespace {

using std::chrono::milliseconds;

ScanReport Report(const std::string& table) {
  ScanReport r;
  r.table = table;
  return r;
}

TEST(ScanRecorderTest, TakeWaitsForEveryScanThatBegan) {
  ScanRecorder recorder;
  recorder.Begin();
  recorder.Begin();
  std::thread scans([&] {
    std::this_thread::sleep_for(milliseconds(30));
    recorder.Add(Report("db.a"));
    std::this_thread::sleep_for(milliseconds(30));
    recorder.Add(Report("db.b"));
  });
  auto reports = recorder.TakeWhenEnded(milliseconds(10000));
  scans.join();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].table, "db.a");
  EXPECT_EQ(reports[1].table, "db.b");
  EXPECT_TRUE(recorder.TakeWhenEnded(milliseconds(0)).empty());  // taken once
}

TEST(ScanRecorderTest, AScanThatNeverEndsDelaysTheReadersOnlyUntilTheTimeout) {
  ScanRecorder recorder;
  recorder.Add(Report("db.done"));  // reported without Begin: counted as ended
  recorder.Begin();
  auto reports = recorder.TakeWhenEnded(milliseconds(20));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].table, "db.done");
  recorder.Add(Report("db.late"));
  reports = recorder.TakeWhenEnded(milliseconds(10000));
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].table, "db.late");
}

}  // namespace
}  // namespace mink::query
