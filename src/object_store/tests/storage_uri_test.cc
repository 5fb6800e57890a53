#include "object_store/storage_uri.h"

#include <gtest/gtest.h>

namespace mink::object_store {
namespace {

TEST(StorageUri, ParsesBucketIdSchemeLocationAndOptions) {
  auto uri = StorageUri::Parse(
      "-2@s3://bucket?region=us-east-1&endpoint=http://127.0.0.1:9000&path-style=true");
  ASSERT_TRUE(uri.ok()) << uri.status();
  EXPECT_EQ(uri->bucket_id, -2);
  EXPECT_EQ(uri->scheme, "s3");
  EXPECT_EQ(uri->location, "bucket");
  EXPECT_EQ(uri->options.at("region"), "us-east-1");
  EXPECT_EQ(uri->options.at("endpoint"), "http://127.0.0.1:9000");
  EXPECT_EQ(uri->options.at("path-style"), "true");
}

TEST(StorageUri, FileLocationKeepsRelativePaths) {
  auto uri = StorageUri::Parse("-2@file://./data/objects");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->location, "./data/objects");
  auto abs = StorageUri::Parse("7@file:///var/lib/mink");
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(abs->location, "/var/lib/mink");
  EXPECT_EQ(abs->bucket_id, 7);
}

TEST(StorageUri, WalDefaultIsIdMinusOne) {
  auto uri = StorageUri::Parse("-2@file://./data/objects");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->WalDefault().bucket_id, -3);
  EXPECT_EQ(uri->WalDefault().location, "./data/objects");
}

TEST(StorageUri, ErrorsNameTheUri) {
  for (const char* bad : {"file://x", "x@file://y", "-2@ftp://x", "-2@file://", "-2file://x"}) {
    auto uri = StorageUri::Parse(bad);
    ASSERT_FALSE(uri.ok()) << bad;
    EXPECT_NE(uri.status().message().find(bad), std::string::npos) << uri.status();
  }
}

TEST(StorageUri, CredentialsAreNotPrinted) {
  auto uri = StorageUri::Parse("-2@s3://b?secret-key=hunter2&access-key=AK&region=r");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->ToString(), "-2@s3://b?region=r");
}

}  // namespace
}  // namespace mink::object_store
