// SASL exchanges against users in a metadata log: SCRAM-SHA-256/512 driven by a client written
// here from RFC 5802 (it checks the server's signature too), PLAIN, and the refusals: a wrong
// password, an unknown user (the same answer), a forged nonce, a step after the end.
#include "auth/sasl_server.h"

#include <gtest/gtest.h>

#include "auth/scram.h"
#include "test_env.h"

namespace mink::auth {
namespace {

class SaslServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto meta = metadata::MetadataLog::Open("sqlite:" + testing_env::MakeTempDir("auth") + "/meta.db");
    ASSERT_TRUE(meta.ok()) << meta.status();
    meta_ = std::move(*meta);
    auto credentials = MakeCredentials("pencil", 4096);
    ASSERT_TRUE(credentials.ok());
    ASSERT_TRUE(meta_->Append(metadata::Command(metadata::CreateUser{"alice", *credentials, false})).ok());
    users_ = std::make_unique<UserDirectory>(meta_.get());
  }

  // A SCRAM exchange as a client makes it; whether the server accepted, and whether its
  // signature proved it knows the credential.
  struct Outcome {
    Status status;
    bool server_verified = false;
  };
  Outcome Scram(const std::string& mechanism, const std::string& user, const std::string& password,
                bool forge_nonce = false) {
    auto server = SaslServer::Make(mechanism, users_.get());
    EXPECT_TRUE(server.ok());
    const std::string client_nonce = "fyko+d2lbbFgONRv9qkxdawL";
    const std::string bare = "n=" + user + ",r=" + client_nonce;
    auto first = (*server)->Step("n,," + bare);
    if (!first.ok()) return {first.status()};
    std::string nonce, salt_b64;
    int iterations = 0;
    for (std::string_view rest = *first; !rest.empty();) {
      const size_t comma = rest.find(',');
      const std::string_view part = rest.substr(0, comma);
      if (part.substr(0, 2) == "r=") nonce = std::string(part.substr(2));
      if (part.substr(0, 2) == "s=") salt_b64 = std::string(part.substr(2));
      if (part.substr(0, 2) == "i=") iterations = std::stoi(std::string(part.substr(2)));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    EXPECT_EQ(nonce.rfind(client_nonce, 0), 0u) << "the server's nonce extends the client's";
    // The client's side: its own derivation of the keys from the password.
    auto credential = MakeCredential(mechanism, password, 4096);
    std::string salt;
    EXPECT_TRUE(scram::FromBase64(salt_b64, &salt));
    std::string salted(mechanism == kScramSha512 ? 64 : 32, '\0');
    {
      // PBKDF2 through the library's own credential path is not exposed: derive with HMAC chains.
      std::string u = scram::Hmac(mechanism, password, salt + std::string("\0\0\0\1", 4));
      salted = u;
      for (int i = 1; i < iterations; ++i) {
        u = scram::Hmac(mechanism, password, u);
        for (size_t b = 0; b < salted.size(); ++b) salted[b] = static_cast<char>(salted[b] ^ u[b]);
      }
    }
    const std::string client_key = scram::Hmac(mechanism, salted, "Client Key");
    const std::string stored_key = scram::Hash(mechanism, client_key);
    const std::string without_proof =
        "c=" + scram::Base64("n,,") + ",r=" + (forge_nonce ? client_nonce + "x" : nonce);
    const std::string auth_message = bare + "," + *first + "," + without_proof;
    const std::string signature = scram::Hmac(mechanism, stored_key, auth_message);
    std::string proof(client_key.size(), '\0');
    for (size_t i = 0; i < proof.size(); ++i) proof[i] = static_cast<char>(client_key[i] ^ signature[i]);
    auto final_answer = (*server)->Step(without_proof + ",p=" + scram::Base64(proof));
    if (!final_answer.ok()) return {final_answer.status()};
    const std::string server_key = scram::Hmac(mechanism, salted, "Server Key");
    Outcome out{Status::Ok(), *final_answer == "v=" + scram::Base64(scram::Hmac(mechanism, server_key, auth_message))};
    EXPECT_TRUE((*server)->authenticated());
    EXPECT_EQ((*server)->user(), user);
    EXPECT_FALSE((*server)->Step("more").ok()) << "a step after the end";
    return out;
  }

  std::unique_ptr<metadata::MetadataLog> meta_;
  std::unique_ptr<UserDirectory> users_;
};

TEST_F(SaslServerTest, ScramAcceptsThePasswordAndProvesTheServerKnowsIt) {
  for (const char* mechanism : {kScramSha256, kScramSha512}) {
    const Outcome ok = Scram(mechanism, "alice", "pencil");
    EXPECT_TRUE(ok.status.ok()) << mechanism << ": " << ok.status;
    EXPECT_TRUE(ok.server_verified) << mechanism;
    const Outcome wrong = Scram(mechanism, "alice", "pen");
    EXPECT_EQ(wrong.status.code(), StatusCode::kPermissionDenied) << mechanism;
    const Outcome nobody = Scram(mechanism, "mallory", "pencil");
    EXPECT_EQ(nobody.status.code(), StatusCode::kPermissionDenied) << mechanism;
    EXPECT_EQ(nobody.status.message(), wrong.status.message()) << "an unknown user looks like a wrong password";
    EXPECT_EQ(Scram(mechanism, "alice", "pencil", true).status.code(), StatusCode::kInvalidArgument);
  }
}

TEST_F(SaslServerTest, PlainChecksThePasswordAgainstTheStoredKeys) {
  auto server = SaslServer::Make(kPlain, users_.get());
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE((*server)->Step(std::string("\0alice\0pencil", 13)).ok());
  EXPECT_TRUE((*server)->authenticated());
  EXPECT_EQ((*server)->user(), "alice");
  for (const std::string& token : {std::string("\0alice\0pen", 10), std::string("\0bob\0pencil", 11),
                                   std::string("bob\0alice\0pencil", 16)}) {
    auto other = SaslServer::Make(kPlain, users_.get());
    auto answer = (*other)->Step(token);
    EXPECT_EQ(answer.status().code(), StatusCode::kPermissionDenied);
    EXPECT_FALSE((*other)->authenticated());
  }
  EXPECT_EQ(SaslServer::Make("GSSAPI", users_.get()).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SaslServerTest, CredentialsKeepNoPasswordAndMatchOnlyIt) {
  auto credentials = MakeCredentials("correct horse", 4096);
  ASSERT_TRUE(credentials.ok());
  ASSERT_EQ(credentials->size(), 2u);
  for (const auto& c : *credentials) {
    EXPECT_TRUE(Matches(c, "correct horse"));
    EXPECT_FALSE(Matches(c, "correct horse "));
    EXPECT_EQ(c.stored_key.find("horse"), std::string::npos);
  }
  EXPECT_NE((*credentials)[0].salt, (*MakeCredentials("correct horse", 4096))[0].salt) << "a fresh salt each time";
  EXPECT_EQ(MakeCredential(kScramSha256, "x", 1000).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mink::auth
