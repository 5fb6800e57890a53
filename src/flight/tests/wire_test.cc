// The plain types, their protobuf conversions, and the hand-written FlightData encoder, which
// must produce exactly the bytes protobuf would.

#include "flight/protocol/wire.h"

#include <grpcpp/support/byte_buffer.h>
#include <gtest/gtest.h>

#include <vector>

#include "flight/tests/test_handler.h"

namespace mink::flight {
namespace {

namespace pb = wire::pb;

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  std::string out;
  for (const auto& slice : slices) {
    out.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return out;
}

size_t SliceCount(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(buffer.Dump(&slices).ok());
  return slices.size();
}

FlightData Sample(size_t body_size, bool with_descriptor) {
  FlightData data;
  if (with_descriptor) data.descriptor = FlightDescriptor::Path({"db", "orders"});
  data.data_header = std::string("\x10\x00\x00\x00hdr", 7);
  data.app_metadata = "app";
  data.body = fake::PatternBody(3, body_size);
  return data;
}

TEST(FlightWireTest, EncoderWritesTheBytesProtobufWrites) {
  for (size_t body_size :
       {size_t{0}, size_t{10}, size_t{16 * 1024}, size_t{16 * 1024 + 1}, size_t{3 * 1024 * 1024}}) {
    for (bool with_descriptor : {false, true}) {
      FlightData data = Sample(body_size, with_descriptor);
      pb::FlightData expected;
      wire::ToProto(FlightData(data), &expected);
      grpc::ByteBuffer buffer = wire::EncodeFlightData(std::move(data));
      EXPECT_EQ(Flatten(buffer), expected.SerializeAsString())
          << "body_size=" << body_size << " descriptor=" << with_descriptor;
    }
  }
}

TEST(FlightWireTest, LargeBodyTravelsAsItsOwnSlice) {
  EXPECT_EQ(SliceCount(wire::EncodeFlightData(Sample(100, true))), 1u);
  EXPECT_EQ(SliceCount(wire::EncodeFlightData(Sample(1 << 20, true))), 2u);
}

TEST(FlightWireTest, DataBodyIsFieldThousandWithTagC23E) {
  FlightData data;
  data.body = "xyz";
  std::string bytes = Flatten(wire::EncodeFlightData(std::move(data)));
  EXPECT_EQ(bytes, std::string("\xC2\x3E\x03xyz", 6));
}

TEST(FlightWireTest, DecodedFlightDataMovesEveryField) {
  FlightData original = Sample(1 << 20, true);
  pb::FlightData message;
  ASSERT_TRUE(message.ParseFromString(Flatten(wire::EncodeFlightData(FlightData(original)))));
  EXPECT_EQ(wire::FromProto(std::move(message)), original);
}

TEST(FlightWireTest, FlightInfoRoundTripsThroughProtobuf) {
  FlightInfo info = fake::TableInfo("t1");
  pb::FlightInfo message;
  wire::ToProto(info, &message);
  pb::FlightInfo parsed;
  ASSERT_TRUE(parsed.ParseFromString(message.SerializeAsString()));
  EXPECT_EQ(wire::FromProto(parsed), info);
  EXPECT_EQ(parsed.endpoint(0).location(0).uri(), "grpc://127.0.0.1:1");
  EXPECT_EQ(parsed.flight_descriptor().type(), pb::FlightDescriptor::PATH);
}

TEST(FlightWireTest, CommandDescriptorRoundTrips) {
  FlightDescriptor cmd = FlightDescriptor::Command(R"({"op":"scan"})");
  pb::FlightDescriptor message;
  wire::ToProto(cmd, &message);
  EXPECT_EQ(message.type(), pb::FlightDescriptor::CMD);
  EXPECT_EQ(wire::FromProto(message), cmd);
  EXPECT_EQ(cmd.ToString(), R"(cmd {"op":"scan"})");
  EXPECT_EQ(FlightDescriptor::Path({"db", "t"}).ToString(), "path [db, t]");
}

TEST(FlightWireTest, UnknownDescriptorTypeNumberReadsAsUnknown) {
  pb::FlightDescriptor message;
  message.set_type(static_cast<pb::FlightDescriptor::DescriptorType>(7));
  EXPECT_EQ(wire::FromProto(message).type, FlightDescriptor::Type::kUnknown);
}

TEST(FlightAddressTest, AcceptsGrpcSchemesAndBareHostPort) {
  EXPECT_EQ(ParseFlightAddress("grpc://127.0.0.1:9123").value_or(""), "127.0.0.1:9123");
  EXPECT_EQ(ParseFlightAddress("grpc+tcp://node-1.local:80").value_or(""), "node-1.local:80");
  EXPECT_EQ(ParseFlightAddress("localhost:0").value_or(""), "localhost:0");
  EXPECT_EQ(ParseFlightAddress("grpc://[::1]:9123/").value_or(""), "[::1]:9123");
  EXPECT_EQ(ParseFlightAddress("grpc+tls://localhost:9123").value_or(""), "localhost:9123");
  EXPECT_TRUE(IsTlsFlightAddress("grpc+tls://localhost:9123"));
  EXPECT_FALSE(IsTlsFlightAddress("grpc://localhost:9123"));
}

TEST(FlightAddressTest, RefusesOtherSchemesAndBadPorts) {
  for (const char* bad : {"grpc+unix://h:1", "http://h:1", "h", "h:", ":1", "h:65536", "h:x",
                          "::1:5", "[::1:5", "a b:1"}) {
    Result<std::string> parsed = ParseFlightAddress(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos) << parsed.status();
  }
}

}  // namespace
}  // namespace mink::flight
