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

}  // namespace
}  // namespace mink::auth
