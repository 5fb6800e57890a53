// Flight actions are default-deny: an action the access list does not name needs admin on the
// cluster, so an action added later is never open to every user by mistake.

#include "flight/service/action_access.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_env.h"

namespace mink::flight {
namespace {

TEST(ActionAccess, AnActionTheListDoesNotNameNeedsAdminOnTheCluster) {
  auto meta = metadata::MetadataLog::Open("sqlite:" + testing_env::MakeTempDir("action-access") + "/meta.db");
  ASSERT_TRUE(meta.ok()) << meta.status();
  auth::AccessControl access(meta->get(), {"root"});
  const nlohmann::json none = nlohmann::json::object();
  for (const char* type : {"some-new-action", "", "list-users", "drop-database"}) {
    Status s = CheckActionAccess(access, "bo", type, none);
    EXPECT_EQ(s.code(), StatusCode::kPermissionDenied) << "'" << type << "': " << s;
    EXPECT_TRUE(CheckActionAccess(access, "root", type, none).ok()) << type;
  }
  for (const char* type : {"list-databases", "list-tables", "init-writer"}) {
    EXPECT_TRUE(CheckActionAccess(access, "bo", type, none).ok()) << type;
  }
  EXPECT_EQ(CheckActionAccess(access, "", "list-nodes", none).code(), StatusCode::kPermissionDenied)
      << "the anonymous caller is nobody";
}

// A stranger's body of the wrong shape is judged, not thrown on: "replace": "yes" is no own
// password change, so a create-user needs admin (it used to throw nlohmann's type_error out of
// the handler).
TEST(ActionAccess, AMemberOfTheWrongTypeIsNoPrivilege) {
  auto meta = metadata::MetadataLog::Open("sqlite:" + testing_env::MakeTempDir("action-access") + "/meta.db");
  ASSERT_TRUE(meta.ok()) << meta.status();
  auth::AccessControl access(meta->get(), {"root"});
  const auto body = nlohmann::json{{"name", "bo"}, {"password", "x"}, {"replace", "yes"}};
  EXPECT_EQ(CheckActionAccess(access, "bo", "create-user", body).code(), StatusCode::kPermissionDenied);
  const auto own = nlohmann::json{{"name", "bo"}, {"password", "x"}, {"replace", true}};
  EXPECT_TRUE(CheckActionAccess(access, "bo", "create-user", own).ok()) << "a new password of one's own";
  const auto typed = nlohmann::json{{"table", 5}, {"sql", nlohmann::json::array()}};
  EXPECT_EQ(CheckActionAccess(access, "bo", "drop-table", typed).code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(CheckActionAccess(access, "bo", "continuous-sql", typed).ok()) << "an empty statement list";
}

}  // namespace
}  // namespace mink::flight
