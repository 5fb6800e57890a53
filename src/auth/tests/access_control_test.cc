// Access control: a grant allows its operation and those it includes on its resource and what
// is inside it, for its principal or everyone; super users and nodes pass; nothing else does,
// the anonymous caller least. Authentication refuses the tokens of a deleted user and, with no
// user at all yet, a call without credentials; the bootstrap user is made once.
#include "auth/access_control.h"

#include <gtest/gtest.h>

#include "auth/authenticator.h"
#include "auth/scram.h"
#include "test_env.h"

namespace mink::auth {
namespace {

using metadata::AclEntry;

class AccessControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto meta = metadata::MetadataLog::Open("sqlite:" + testing_env::MakeTempDir("acl") + "/meta.db");
    ASSERT_TRUE(meta.ok()) << meta.status();
    meta_ = std::move(*meta);
  }
  void Grant(std::vector<AclEntry> entries) {
    ASSERT_TRUE(meta_->Append(metadata::Command(metadata::GrantAcls{std::move(entries)})).ok());
  }

  std::unique_ptr<metadata::MetadataLog> meta_;
};

TEST_F(AccessControlTest, GrantsCoverWhatIsInsideTheirResourceAndWhatTheirOperationIncludes) {
  AccessControl access(meta_.get(), {"root"});
  const Resource orders = Resource::Table("kafka.orders");
  EXPECT_FALSE(access.Allowed("bo", orders, Operation::kDescribe)) << "nothing without a grant";
  Grant({AclEntry{"bo", "table:kafka.orders", "write"}});
  EXPECT_TRUE(access.Allowed("bo", orders, Operation::kWrite));
  EXPECT_TRUE(access.Allowed("bo", orders, Operation::kDescribe));
  EXPECT_FALSE(access.Allowed("bo", orders, Operation::kRead)) << "write does not include read";
  EXPECT_FALSE(access.Allowed("bo", Resource::Table("kafka.other"), Operation::kWrite));
  EXPECT_FALSE(access.Allowed("al", orders, Operation::kWrite)) << "another user";

  Grant({AclEntry{"al", "database:shop", "read"}, AclEntry{"*", "table:kafka.*", "describe"},
         AclEntry{"cy", "group:g1", "read"}, AclEntry{"dee", "cluster", "admin"}});
  EXPECT_TRUE(access.Allowed("al", Resource::Table("shop.items"), Operation::kRead)) << "a database holds its tables";
  EXPECT_FALSE(access.Allowed("al", Resource::Table("shopping.items"), Operation::kRead)) << "not a prefix match";
  EXPECT_FALSE(access.Allowed("al", Resource::Database("shop"), Operation::kAdmin));
  EXPECT_TRUE(access.Allowed("zed", Resource::Table("kafka.any"), Operation::kDescribe)) << "* is everyone";
  EXPECT_FALSE(access.Allowed("zed", Resource::Table("kafka.any"), Operation::kRead));
  EXPECT_FALSE(access.Allowed("zed", Resource::Database("kafka"), Operation::kDescribe)) << "a table is not its database";
  EXPECT_TRUE(access.Allowed("cy", Resource::Group("g1"), Operation::kRead));
  EXPECT_FALSE(access.Allowed("cy", Resource::Group("g2"), Operation::kRead));
  for (const Resource& r : {Resource::Cluster(), Resource::Database("x"), Resource::Table("x.y"), Resource::Group("g")}) {
    EXPECT_TRUE(access.Allowed("dee", r, Operation::kAdmin)) << "the cluster holds " << r.ToString();
  }
  EXPECT_FALSE(access.Allowed("al", Resource::Cluster(), Operation::kDescribe));

  auto denied = access.Check("bo", orders, Operation::kRead);
  EXPECT_EQ(denied.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(denied.message(), "user bo may not read table kafka.orders");
  EXPECT_EQ(access.Check("bo", Resource::Cluster(), Operation::kAdmin).message(), "user bo may not admin the cluster");

  ASSERT_TRUE(meta_->Append(metadata::Command(metadata::RevokeAcls{{AclEntry{"bo", "table:kafka.orders", "write"}}})).ok());
  EXPECT_FALSE(access.Allowed("bo", orders, Operation::kWrite)) << "revoked";
}

TEST_F(AccessControlTest, SuperUsersAndNodesPassAndTheAnonymousCallerDoesNot) {
  AccessControl access(meta_.get(), {"root"});
  for (const std::string user : {"root", "node:3"}) {
    EXPECT_TRUE(access.Allowed(user, Resource::Cluster(), Operation::kAdmin)) << "'" << user << "'";
  }
  EXPECT_FALSE(access.Allowed("", Resource::Cluster(), Operation::kDescribe));
  EXPECT_EQ(NodePrincipal(3), "node:3");
  EXPECT_FALSE(access.Allowed("rooty", Resource::Cluster(), Operation::kDescribe));
  EXPECT_FALSE(access.Allowed("node-3", Resource::Cluster(), Operation::kDescribe));
}

TEST_F(AccessControlTest, TokensOfADeletedUserAreRefused) {
  auto credentials = MakeCredentials("pw", 4096);
  ASSERT_TRUE(credentials.ok());
  ASSERT_TRUE(meta_->Append(metadata::Command(metadata::CreateUser{"ana", *credentials, false})).ok());
  UserDirectory users(meta_.get());
  Authenticator authenticator(&users, TokenSigner(std::string(32, 's')));
  const std::string token = "Bearer " + authenticator.IssueToken("ana");
  ASSERT_TRUE(authenticator.Check(token).ok());
  EXPECT_TRUE(authenticator.Check("Bearer " + authenticator.IssueToken(NodePrincipal(1))).ok()) << "nodes are no users";
  ASSERT_TRUE(meta_->Append(metadata::Command(metadata::DeleteUser{"ana"})).ok());
  EXPECT_EQ(authenticator.Check(token).status().code(), StatusCode::kPermissionDenied);
}

TEST_F(AccessControlTest, NoCallerIsLetInWithoutCredentialsAndTheFirstUserComesFromTheNode) {
  UserDirectory users(meta_.get());
  Authenticator authenticator(&users, TokenSigner(std::string(32, 's')));
  ASSERT_TRUE(users.empty());
  EXPECT_EQ(authenticator.Check("").status().code(), StatusCode::kPermissionDenied)
      << "a cluster without users let an anonymous caller in";
  ASSERT_TRUE(users.EnsureBootstrapUser("root", "first").ok());
  ASSERT_TRUE(users.CheckPassword("root", "first").ok());
  // Another node starting with another password does not change it; a bad name is refused.
  ASSERT_TRUE(users.EnsureBootstrapUser("root", "second").ok());
  EXPECT_TRUE(users.CheckPassword("root", "first").ok());
  EXPECT_FALSE(users.EnsureBootstrapUser("node:1", "x").ok());
  EXPECT_FALSE(users.EnsureBootstrapUser("ann", "").ok());
}

}  // namespace
}  // namespace mink::auth
