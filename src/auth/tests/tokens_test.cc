// Bearer tokens: what one signer issues another with the same secret verifies, until it expires;
// a token of another secret, a changed user or expiry, or a malformed one is refused.
#include "auth/tokens.h"

#include <gtest/gtest.h>

namespace mink::auth {
namespace {

const std::string kSecret(32, 's');

TEST(Tokens, VerifiedByAnySignerOfTheSecretUntilTheyExpire) {
  const TokenSigner issuer(kSecret), other_node(kSecret);
  const std::string token = issuer.Issue("alice@example", 2'000);
  EXPECT_EQ(token.rfind("mink1.", 0), 0u);
  EXPECT_EQ(token.find_first_of("+/= "), std::string::npos) << "header-safe: " << token;
  auto user = other_node.Verify(token, 1'999);
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(*user, "alice@example");
  EXPECT_EQ(other_node.Verify(token, 2'000).status().code(), StatusCode::kPermissionDenied) << "expired";
}

TEST(Tokens, AnythingChangedOrForeignIsRefused) {
  const TokenSigner signer(kSecret);
  const std::string token = signer.Issue("alice", 5'000);
  const std::string other = TokenSigner(std::string(32, 't')).Issue("alice", 5'000);
  const std::string as_bob = signer.Issue("bob", 5'000);
  // alice's signature on bob's name, and a later expiry with the old signature.
  const std::string swapped = as_bob.substr(0, as_bob.rfind('.')) + token.substr(token.rfind('.'));
  std::string later = token;
  later.replace(later.find(".5000."), 6, ".9000.");
  for (const std::string& bad : {other, swapped, later, std::string("mink1.YWxpY2U.5000"), std::string(""),
                                 std::string("mink2") + token.substr(5), token + "x"}) {
    EXPECT_EQ(signer.Verify(bad, 1'000).status().code(), StatusCode::kPermissionDenied) << bad;
  }
  EXPECT_TRUE(signer.Verify(token, 1'000).ok());
}

TEST(Tokens, ARotationKeepsThePreviousSecretsTokensUntilTheyExpire) {
  const std::string old_secret(40, 'o'), new_secret(40, 'n');
  auto before = SignerFromSecrets({old_secret, "", "", ""}, /*cluster=*/true);
  auto during = SignerFromSecrets({new_secret, "", old_secret, ""}, true);
  auto after = SignerFromSecrets({new_secret, "", "", ""}, true);
  ASSERT_TRUE(before.ok() && during.ok() && after.ok());
  const std::string old_token = before->Issue("alice", 5'000);
  const std::string new_token = during->Issue("alice", 5'000);
  EXPECT_TRUE(during->Verify(old_token, 1'000).ok()) << "the previous secret's token, during the rotation";
  EXPECT_EQ(during->Verify(old_token, 5'000).status().code(), StatusCode::kPermissionDenied) << "expired";
  EXPECT_TRUE(after->Verify(new_token, 1'000).ok());
  EXPECT_EQ(after->Verify(old_token, 1'000).status().code(), StatusCode::kPermissionDenied) << "rotated out";
  EXPECT_EQ(before->Verify(new_token, 1'000).status().code(), StatusCode::kPermissionDenied);
  // The key is derived: the secret itself does not sign.
  EXPECT_EQ(TokenSigner(new_secret).Verify(new_token, 1'000).status().code(), StatusCode::kPermissionDenied);
}

TEST(Tokens, SecretsAreGivenNotMadeUpInACluster) {
  auto none = SignerFromSecrets({}, /*cluster=*/true);
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("--auth-token-secret-file"), std::string::npos) << none.status();
  auto alone = SignerFromSecrets({}, /*cluster=*/false);
  ASSERT_TRUE(alone.ok()) << "a node alone makes a key of its own";
  EXPECT_TRUE(alone->Verify(alone->Issue("bob", 5'000), 1'000).ok());
  auto short_secret = SignerFromSecrets({"too short", "", "", ""}, false);
  EXPECT_EQ(short_secret.status().code(), StatusCode::kInvalidArgument);
  auto missing = SignerFromSecrets({"", "/nonexistent/secret", "", ""}, false);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("/nonexistent/secret"), std::string::npos);
}

}  // namespace
}  // namespace mink::auth
