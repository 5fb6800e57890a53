#include "client/table_printer.h"

#include <gtest/gtest.h>

namespace mink::client {
namespace {

TEST(TablePrinterTest, AlignsTextLeftAndNumbersRight) {
  TablePrinter p({"id", "region", "amount"}, {true, false, true});
  p.AddRow({"1", "us", "11.00"});
  p.AddRow({"22", "europe", "3.00"});
  std::string out;
  p.Render(&out);
  EXPECT_EQ(out,
            "id | region | amount\n"
            "---+--------+-------\n"
            " 1 | us     |  11.00\n"
            "22 | europe |   3.00\n");
}

TEST(TablePrinterTest, WidthsCountCodePointsAndNoTrailingBlanks) {
  TablePrinter p({"n", "s"}, {false, false});
  p.AddRow({"h\xC3\xA9llo", "x"});
  p.AddRow({"a", "longer"});
  std::string out;
  p.Render(&out);
  EXPECT_EQ(out,
            "n     | s\n"
            "------+-------\n"
            "h\xC3\xA9llo | x\n"
            "a     | longer\n");
  EXPECT_EQ(TablePrinter::DisplayWidth("h\xC3\xA9llo"), 5u);
}

TEST(TablePrinterTest, StreamingWritesTheHeaderOnceAndWidensLater) {
  TablePrinter p({"id", "note"}, {true, false});
  p.AddRow({"7", "a"});
  std::string out;
  p.Render(&out);
  p.AddRow({"1234", "b"});
  p.Render(&out);
  EXPECT_EQ(out,
            "id | note\n"
            "---+-----\n"
            " 7 | a\n"
            "1234 | b\n");
}

TEST(TablePrinterTest, EmptyTableHasAHeader) {
  TablePrinter p({"a"}, {false});
  std::string out;
  p.Render(&out);
  EXPECT_EQ(out, "a\n-\n");
}

}  // namespace
}  // namespace mink::client
