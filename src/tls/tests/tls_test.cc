// TLS for listeners: the files are checked when a node starts, naming what is wrong; a Stream
// made with a context speaks TLS that a client verifying the certificate accepts, and the same
// bytes go both ways as on a plain Stream; a plain client cannot talk to a TLS stream.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "test_certificates.h"
#include "test_env.h"
#include "tls/certificate_reloader.h"
#include "tls/tls_stream.h"

namespace mink::tls {
namespace {

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing_env::MakeTempDir("tls");
    cert_ = testing::MakeSelfSigned(dir_, "server");
    if (cert_.cert.empty()) GTEST_SKIP() << "the openssl command cannot make a certificate";
  }

  // Accepts one connection on a Stream (TLS with `context`), reads 4 bytes and writes them
  // back; the handshake's or the read's error in *error.
  std::thread EchoOnce(asio::ip::tcp::acceptor& acceptor, asio::ssl::context* context, asio::error_code* error) {
    return std::thread([&acceptor, context, error] {
      Stream stream(acceptor.accept(), context);
      asio::io_context& io = static_cast<asio::io_context&>(acceptor.get_executor().context());
      char bytes[4];
      stream.AsyncHandshake([&](const asio::error_code& ec) {
        if (ec) {
          *error = ec;
          return;
        }
        asio::async_read(stream, asio::buffer(bytes), [&](const asio::error_code& ec2, size_t) {
          if (ec2) {
            *error = ec2;
            return;
          }
          asio::async_write(stream, asio::buffer(bytes), [&](const asio::error_code& ec3, size_t) { *error = ec3; });
        });
      });
      io.run();
      stream.Close();
    });
  }

  std::string dir_;
  testing::Certificate cert_;
};

TEST_F(TlsTest, FilesThatDoNotLoadAreNamed) {
  EXPECT_TRUE(Check(ServerFiles{}).ok()) << "no certificate: plain";
  EXPECT_EQ(Check(ServerFiles{cert_.cert, "", ""}).message(), "TLS needs both --tls-cert and --tls-key");
  auto missing = Check(ServerFiles{dir_ + "/none.crt", cert_.key, ""});
  EXPECT_EQ(missing.message(), "--tls-cert: cannot read " + dir_ + "/none.crt");
  auto other = testing::MakeSelfSigned(dir_, "other");
  auto mismatch = Check(ServerFiles{cert_.cert, other.key, ""});
  EXPECT_EQ(mismatch.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(mismatch.message().find("does not belong to the certificate"), std::string::npos) << mismatch.message();
  std::ofstream(dir_ + "/text.pem") << "not a certificate\n";
  EXPECT_NE(Check(ServerFiles{dir_ + "/text.pem", cert_.key, ""}).message().find("holds no PEM block"),
            std::string::npos);
  EXPECT_TRUE(Check(ServerFiles{cert_.cert, cert_.key, cert_.cert}).ok());
}

TEST_F(TlsTest, AVerifyingClientTalksToATlsStream) {
  auto context = MakeServerContext(ServerFiles{cert_.cert, cert_.key, ""});
  ASSERT_TRUE(context.ok()) << context.status();
  asio::io_context server_io;
  asio::ip::tcp::acceptor acceptor(server_io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::error_code server_error;
  std::thread server = EchoOnce(acceptor, context->get(), &server_error);

  asio::io_context io;
  asio::ssl::context client_context(asio::ssl::context::tls_client);
  client_context.load_verify_file(cert_.cert);
  client_context.set_verify_mode(asio::ssl::verify_peer);
  asio::ssl::stream<asio::ip::tcp::socket> client(io, client_context);
  client.set_verify_callback(asio::ssl::host_name_verification("localhost"));
  client.next_layer().connect(acceptor.local_endpoint());
  client.handshake(asio::ssl::stream_base::client);
  asio::write(client, asio::buffer("ping", 4));
  char back[4];
  asio::read(client, asio::buffer(back));
  server.join();
  EXPECT_FALSE(server_error) << server_error.message();
  EXPECT_EQ(std::string(back, 4), "ping");
}

TEST_F(TlsTest, APlainStreamEchoesAndAPlainClientCannotTalkTls) {
  asio::io_context server_io;
  asio::ip::tcp::acceptor acceptor(server_io, {asio::ip::make_address("127.0.0.1"), 0});
  asio::error_code server_error;
  std::thread plain = EchoOnce(acceptor, nullptr, &server_error);
  asio::io_context io;
  asio::ip::tcp::socket client(io);
  client.connect(acceptor.local_endpoint());
  asio::write(client, asio::buffer("pong", 4));
  char back[4];
  asio::read(client, asio::buffer(back));
  plain.join();
  EXPECT_EQ(std::string(back, 4), "pong");

  auto context = MakeServerContext(ServerFiles{cert_.cert, cert_.key, ""});
  ASSERT_TRUE(context.ok());
  server_io.restart();
  std::thread tls = EchoOnce(acceptor, context->get(), &server_error);
  asio::ip::tcp::socket stranger(io);
  stranger.connect(acceptor.local_endpoint());
  asio::write(stranger, asio::buffer("GET / HTTP/1.1\r\n\r\n", 18));
  tls.join();
  EXPECT_TRUE(server_error) << "the handshake of a plain client fails";
}

// A renewed pair is served once its files change; files that do not load leave the last good
// pair served; the mirror gRPC reads holds the key and the chain of the last good pair, 0600.
TEST_F(TlsTest, TheReloaderServesRenewedFilesAndKeepsTheLastGoodPair) {
  const ServerFiles files{cert_.cert, cert_.key, ""};
  auto reloader = CertificateReloader::Open(files);
  ASSERT_TRUE(reloader.ok()) << reloader.status();
  const std::string first = (*reloader)->Fingerprint();
  EXPECT_EQ(first.size(), 64u);
  auto again = CertificateReloader::Open(files);  // another listener of the same files
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->get(), reloader->get());
  again->reset();
  EXPECT_FALSE((*reloader)->MaybeReload(/*now=*/true));  // nothing changed
  ASSERT_TRUE((*reloader)->StartMirror().ok());
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  const std::string mirrored = read((*reloader)->mirror_file());
  EXPECT_NE(mirrored.find("PRIVATE KEY-----"), std::string::npos);
  EXPECT_NE(mirrored.find(read(cert_.cert)), std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat((*reloader)->mirror_file().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  const testing::Certificate renewed = testing::MakeSelfSigned(dir_, "renewed");
  ASSERT_FALSE(renewed.cert.empty());
  std::filesystem::rename(renewed.key, cert_.key);
  std::filesystem::rename(renewed.cert, cert_.cert);
  EXPECT_TRUE((*reloader)->MaybeReload(/*now=*/true));
  const std::string second = (*reloader)->Fingerprint();
  EXPECT_NE(second, first);
  EXPECT_NE(read((*reloader)->mirror_file()).find(read(cert_.cert)), std::string::npos);

  std::ofstream(cert_.cert) << "-----BEGIN CERTIFICATE-----\nbroken\n-----END CERTIFICATE-----\n";
  EXPECT_FALSE((*reloader)->MaybeReload(/*now=*/true));
  EXPECT_EQ((*reloader)->Fingerprint(), second);
  EXPECT_EQ(read((*reloader)->mirror_file()).find("broken"), std::string::npos);
  const std::string mirror_dir = std::filesystem::path((*reloader)->mirror_file()).parent_path();
  reloader->reset();
  EXPECT_FALSE(std::filesystem::exists(mirror_dir));  // the copy of the key goes with it
}

}  // namespace
}  // namespace mink::tls
