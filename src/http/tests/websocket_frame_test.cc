// The pure pieces under ApiServer: RFC 6455's accept key and frames, and the request parsing
// both servers share (server_internal.h).

#include "http/websocket_frame.h"

#include <gtest/gtest.h>

#include "http/server_internal.h"

namespace mink::http {
namespace {

// A client's frame: masked with `mask`.
std::string ClientFrame(uint8_t first_byte, const std::string& payload,
                        const std::string& mask = "\x11\x22\x33\x44") {
  std::string out(1, static_cast<char>(first_byte));
  if (payload.size() <= 125) {
    out += static_cast<char>(0x80 | payload.size());
  } else {
    out += static_cast<char>(0x80 | 126);
    out += static_cast<char>(payload.size() >> 8);
    out += static_cast<char>(payload.size() & 0xFF);
  }
  out += mask;
  for (size_t i = 0; i < payload.size(); ++i) out += static_cast<char>(payload[i] ^ mask[i % 4]);
  return out;
}

TEST(WebSocketFrame, AcceptKeyIsTheRfcExample) {
  // RFC 6455 section 1.3 (and 4.2.2) gives this key and its answer.
  EXPECT_EQ(WebSocketAccept("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST(WebSocketFrame, LengthsTakeSevenSixteenOrSixtyFourBits) {
  EXPECT_EQ(EncodeWsFrame(WsOpcode::kText, "hi"), std::string("\x81\x02hi", 4));
  const std::string f126 = EncodeWsFrame(WsOpcode::kText, std::string(126, 'a'));
  EXPECT_EQ(f126.substr(0, 4), std::string("\x81\x7e\x00\x7e", 4));
  EXPECT_EQ(f126.size(), 4u + 126);
  const std::string f64k = EncodeWsFrame(WsOpcode::kText, std::string(65536, 'b'));
  EXPECT_EQ(f64k.substr(0, 10), std::string("\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00", 10));
  EXPECT_EQ(EncodeWsFrame(WsOpcode::kClose, WsClosePayload(1008, "no")),
            std::string("\x88\x04\x03\xf0no", 6));
  // A reason is cut to fit a control frame (123 bytes), not inside a UTF-8 character.
  EXPECT_EQ(WsClosePayload(1000, std::string(130, 'x')).size(), 2u + 123);
  const std::string cut = WsClosePayload(1000, std::string(122, 'x') + "\xc3\xa9");
  EXPECT_EQ(cut.size(), 2u + 122);
  EXPECT_EQ(cut.back(), 'x');
}

TEST(WebSocketFrame, ReaderUnmasksFramesSplitAnywhere) {
  const std::string bytes = ClientFrame(0x81, "hello") + ClientFrame(0x89, "ping") +
                            ClientFrame(0x82, std::string(300, 'z'));
  WsFrameReader reader(1 << 20);
  std::vector<WsFrame> frames;
  for (char c : bytes) {
    reader.Feed(&c, 1);
    WsFrame f;
    auto got = reader.Next(&f);
    ASSERT_TRUE(got.ok()) << got.status();
    if (*got) frames.push_back(f);
  }
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].opcode, WsOpcode::kText);
  EXPECT_EQ(frames[0].payload, "hello");
  EXPECT_EQ(frames[1].opcode, WsOpcode::kPing);
  EXPECT_EQ(frames[1].payload, "ping");
  EXPECT_EQ(frames[2].payload, std::string(300, 'z'));
}

TEST(WebSocketFrame, ReaderRefusesWhatTheProtocolForbids) {
  auto first_error = [](const std::string& bytes, size_t max = 1 << 20) {
    WsFrameReader reader(max);
    reader.Feed(bytes.data(), bytes.size());
    WsFrame f;
    auto got = reader.Next(&f);
    return got.ok() ? StatusCode::kOk : got.status().code();
  };
  EXPECT_EQ(first_error(std::string("\x81\x02hi", 4)), StatusCode::kInvalidArgument);  // not masked
  EXPECT_EQ(first_error(ClientFrame(0xC1, "x")), StatusCode::kInvalidArgument);        // RSV1
  EXPECT_EQ(first_error(ClientFrame(0x83, "x")), StatusCode::kInvalidArgument);        // opcode 3
  EXPECT_EQ(first_error(ClientFrame(0x09, "x")),
            StatusCode::kInvalidArgument);  // a fragmented ping
  EXPECT_EQ(first_error(ClientFrame(0x89, std::string(126, 'p'))), StatusCode::kInvalidArgument);
  EXPECT_EQ(first_error(ClientFrame(0x81, std::string(200, 't')), 100),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(first_error(ClientFrame(0x81, "fine")), StatusCode::kOk);
}

TEST(ServerInternal, RequestHeadsTargetsAndQueries) {
  auto head = internal::ParseRequestHead(
      "POST /api/v1/a%20b?q=x+y&q=z%26&flag HTTP/1.1\r\nHost: h\r\nX-A: 1\r\nx-a: 2\r\n"
      "Content-Length: 3\r\ncontent-length: 3\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->method, "POST");
  EXPECT_EQ(head->minor_version, 1);
  EXPECT_EQ(head->headers.at("x-a"), "1, 2");
  EXPECT_EQ(head->headers.at("content-length"), "3");
  std::string path;
  std::map<std::string, std::string> query;
  ASSERT_TRUE(internal::SplitTarget(head->target, &path, &query).ok());
  EXPECT_EQ(path, "/api/v1/a b");
  EXPECT_EQ(query, (std::map<std::string, std::string>{{"q", "z&"}, {"flag", ""}}));
  ASSERT_TRUE(internal::SplitTarget("http://h:1/ws/a+b%2Fc%zz", &path, &query).ok());
  EXPECT_EQ(path, "/ws/a+b/c%zz");
  EXPECT_FALSE(internal::SplitTarget("ws/x", &path, &query).ok());
  EXPECT_FALSE(internal::ParseRequestHead("GET / HTTP/2.0\r\n\r\n").ok());
  EXPECT_FALSE(internal::ParseRequestHead("GET /\r\n\r\n").ok());
  EXPECT_FALSE(internal::ParseRequestHead("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n").ok());
  EXPECT_FALSE(
      internal::ParseRequestHead("GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
          .ok());
  EXPECT_TRUE(internal::HasToken("keep-alive, Upgrade", "upgrade"));
  EXPECT_FALSE(internal::HasToken("keep-alive, upgrades", "upgrade"));
}

}  // namespace
}  // namespace mink::http
