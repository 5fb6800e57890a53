// Golden bytes of a tiny stream, checked against the IPC format rules by hand (continuation
// markers, 8-byte alignment of metadata and body, buffer layout, end-of-stream marker) with a
// minimal flatbuffer reader written here, independent of the library's own parser.

#include <gtest/gtest.h>

#include "arrow_format/builder.h"
#include "arrow_format/ipc.h"
#include "base/bytes.h"
#include "base/strings.h"

namespace mink::arrow {
namespace {

// Reads flatbuffer tables: a table starts with an int32 offset back to its vtable; the vtable
// holds u16 sizes then one u16 offset per field id (0 = absent).
struct FlatTable {
  std::string_view buf;
  size_t pos;

  static FlatTable Root(std::string_view buf) { return {buf, LoadU32(buf.data())}; }
  uint16_t U16(size_t p) const {
    return static_cast<uint16_t>(static_cast<uint8_t>(buf[p]) |
                                 (static_cast<uint8_t>(buf[p + 1]) << 8));
  }
  size_t Field(int id) const {
    size_t vtable = pos - static_cast<int32_t>(LoadU32(buf.data() + pos));
    size_t slot = 4 + 2 * static_cast<size_t>(id);
    if (slot >= U16(vtable)) return 0;
    uint16_t off = U16(vtable + slot);
    return off == 0 ? 0 : pos + off;
  }
  int64_t Int(int id, int width) const {
    size_t p = Field(id);
    if (p == 0) return 0;
    switch (width) {
      case 1:
        return static_cast<uint8_t>(buf[p]);
      case 2:
        return static_cast<int16_t>(U16(p));
      case 4:
        return static_cast<int32_t>(LoadU32(buf.data() + p));
      default:
        return static_cast<int64_t>(LoadU64(buf.data() + p));
    }
  }
  FlatTable Table(int id) const {
    size_t p = Field(id);
    return {buf, p + LoadU32(buf.data() + p)};
  }
  // Vector of 16-byte structs of two int64s.
  std::vector<std::pair<int64_t, int64_t>> StructPairs(int id) const {
    size_t p = Field(id);
    size_t vec = p + LoadU32(buf.data() + p);
    uint32_t n = LoadU32(buf.data() + vec);
    std::vector<std::pair<int64_t, int64_t>> out;
    for (uint32_t i = 0; i < n; ++i) {
      const char* e = buf.data() + vec + 4 + 16 * i;
      out.emplace_back(static_cast<int64_t>(LoadU64(e)), static_cast<int64_t>(LoadU64(e + 8)));
    }
    return out;
  }
};

std::string TinyStream() {
  Int32Builder b;
  b.Append(1);
  b.AppendNull();
  b.Append(3);
  auto column = b.Finish();
  auto schema = std::make_shared<const Schema>(std::vector<Field>{Field("x", Int32())});
  auto batch = RecordBatch::Make(schema, 3, {*column});
  return *WriteStream(schema, {*batch});
}

// The exact bytes our writer produces for TinyStream(); any change to them must be deliberate
// (and still pass the rule checks below).
constexpr char kGoldenHex[] =
    "ffffffff780000001000000000000a000c000600050008000a000000000104000c0000000800080000000400"
    "08000000040000000100000014000000100014000800060007000c000000100010000000000001020c000000"
    "1800000020000000010000007800000008000c000800070008000000000000012000000000000000ffffffff"
    "8800000014000000000000000c0016000600050008000c000c00000000030400180000001800000000000000"
    "00000a0018000c00040008000a0000003c000000100000000300000000000000000000000200000000000000"
    "00000000010000000000000008000000000000000c0000000000000000000000010000000300000000000000"
    "0100000000000000050000000000000001000000000000000300000000000000ffffffff00000000";

TEST(IpcGoldenTest, TinyStreamFollowsTheFramingRules) {
  const std::string s = TinyStream();
  ASSERT_EQ(s.size() % 8, 0u);

  // Message 1: the schema.
  ASSERT_EQ(LoadU32(s.data()), 0xFFFFFFFFu) << "continuation marker";
  const uint32_t len1 = LoadU32(s.data() + 4);
  EXPECT_EQ((8 + len1) % 8, 0u) << "metadata padded so the next message is aligned";
  FlatTable m1 = FlatTable::Root(std::string_view(s).substr(8, len1));
  EXPECT_EQ(m1.Int(0, 2), 4) << "MetadataVersion V5";
  EXPECT_EQ(m1.Int(1, 1), 1) << "header type Schema";
  EXPECT_EQ(m1.Int(3, 8), 0) << "a schema has no body";

  // Message 2: the record batch.
  const size_t p2 = 8 + len1;
  ASSERT_EQ(LoadU32(s.data() + p2), 0xFFFFFFFFu);
  const uint32_t len2 = LoadU32(s.data() + p2 + 4);
  EXPECT_EQ((p2 + 8 + len2) % 8, 0u) << "body starts 8-byte aligned";
  FlatTable m2 = FlatTable::Root(std::string_view(s).substr(p2 + 8, len2));
  EXPECT_EQ(m2.Int(0, 2), 4);
  EXPECT_EQ(m2.Int(1, 1), 3) << "header type RecordBatch";
  const int64_t body_length = m2.Int(3, 8);
  EXPECT_EQ(body_length, 24);
  FlatTable rb = m2.Table(2);
  EXPECT_EQ(rb.Int(0, 8), 3) << "row count";
  EXPECT_EQ(rb.StructPairs(1), (std::vector<std::pair<int64_t, int64_t>>{{3, 1}}))
      << "one field node: length 3, one null";
  EXPECT_EQ(rb.StructPairs(2), (std::vector<std::pair<int64_t, int64_t>>{{0, 1}, {8, 12}}))
      << "validity (1 byte) at 0, values (12 bytes) at the next 8-byte boundary";
  EXPECT_EQ(rb.Field(3), 0u) << "no compression";

  const size_t body = p2 + 8 + len2;
  const std::string expected_body(
      "\x05\0\0\0\0\0\0\0"                     // validity 0b101, zero padding
      "\x01\0\0\0\0\0\0\0\x03\0\0\0\0\0\0\0",  // 1, (null slot 0), 3, zero padding
      24);
  EXPECT_EQ(s.substr(body, 24), expected_body);

  // End of stream.
  ASSERT_EQ(s.size(), body + 24 + 8);
  EXPECT_EQ(s.substr(s.size() - 8), std::string("\xff\xff\xff\xff\0\0\0\0", 8));
}

TEST(IpcGoldenTest, TinyStreamMatchesGoldenBytes) {
  EXPECT_EQ(HexEncode(TinyStream()), kGoldenHex);
  auto golden = HexDecode(kGoldenHex);
  ASSERT_TRUE(golden.ok());
  auto read = ReadStream(Buffer::FromString(*golden));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->batches.size(), 1u);
  Int32Array x(read->batches[0]->Column(0));
  EXPECT_EQ(x.Value(0), 1);
  EXPECT_TRUE(x.IsNull(1));
  EXPECT_EQ(x.Value(2), 3);
}

}  // namespace
}  // namespace mink::arrow
