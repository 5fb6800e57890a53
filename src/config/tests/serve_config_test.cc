#include "config/serve_config.h"

#include <gtest/gtest.h>

#include <fstream>

#include "test_env.h"

namespace mink::config {
namespace {

std::string WriteFile(const std::string& text) {
  std::string path = testing_env::MakeTempDir("config") + "/mink.toml";
  std::ofstream(path) << text;
  return path;
}

TEST(ServeConfig, DefaultsMatchTheQuickStart) {
  auto c = LoadServeConfig({}, "", {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->meta_url, "sqlite:./data/meta.db");
  EXPECT_EQ(c->storage_uri, "-2@file://./data/objects");
  EXPECT_EQ(c->listen, "127.0.0.1:9123");
  EXPECT_EQ(c->advertise, "grpc://127.0.0.1:9123");
  EXPECT_TRUE(c->kafka_listen.empty());
  EXPECT_EQ(c->session_timeout.count(), 9000);  // Kafka's broker session timeout
}

TEST(ServeConfig, FlagsOverrideEnvironmentOverrideFile) {
  std::string file = WriteFile("node-id = 3\nlisten = \"0.0.0.0:1\"\n[wal]\nflush-interval = \"40ms\"\nmax-bytes = \"2MiB\"\n");
  std::map<std::string, std::string> env = {{"MINK_NODE_ID", "4"}, {"MINK_WAL_FLUSH_INTERVAL", "30ms"}};
  std::map<std::string, std::string> flags = {{"node-id", "5"}};
  ConfigSources sources;
  auto c = LoadServeConfig(flags, file, env, &sources);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->node_id, 5);                               // flag
  EXPECT_EQ(c->wal_flush_interval.count(), 30);           // environment
  EXPECT_EQ(c->wal_max_bytes, 2u << 20);                  // file
  EXPECT_EQ(c->listen, "0.0.0.0:1");                      // file
  EXPECT_EQ(sources.origins["node-id"], "flag --node-id");
  EXPECT_EQ(sources.origins["wal.flush-interval"], "environment MINK_WAL_FLUSH_INTERVAL");
}

TEST(ServeConfig, ErrorsNameTheirSource) {
  auto bad_flag = LoadServeConfig({{"wal.flush-interval", "soon"}}, "", {});
  ASSERT_FALSE(bad_flag.ok());
  EXPECT_NE(bad_flag.status().message().find("--wal-flush-interval"), std::string::npos);
  auto bad_env = LoadServeConfig({}, "", {{"MINK_NODE_ID", "x"}});
  ASSERT_FALSE(bad_env.ok());
  EXPECT_NE(bad_env.status().message().find("MINK_NODE_ID"), std::string::npos);
  auto unknown = LoadServeConfig({}, WriteFile("[wal]\nflush = 3\n"), {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("wal.flush"), std::string::npos);
  auto broken = LoadServeConfig({}, WriteFile("node-id = = 3\n"), {});
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("line 1"), std::string::npos);
}

TEST(ServeConfig, KafkaLimitsAndAutoCreationAsKafkaNamesThem) {
  auto defaults = LoadServeConfig({}, "", {});
  ASSERT_TRUE(defaults.ok());
  EXPECT_TRUE(defaults->kafka_auto_create_topics);
  EXPECT_EQ(defaults->kafka_max_message_bytes, 1'048'588u);   // Kafka's message.max.bytes
  EXPECT_EQ(defaults->kafka_max_request_bytes, 104'857'600u);  // socket.request.max.bytes
  EXPECT_EQ(defaults->retention_check_interval.count(), 60'000);
  auto c = LoadServeConfig({{"kafka.max-message-bytes", "100KiB"}},
                           WriteFile("retention-check-interval = \"500ms\"\n"
                                     "[kafka]\nauto-create-topics = false\n"),
                           {{"MINK_KAFKA_MAX_REQUEST_BYTES", "1MiB"}});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_FALSE(c->kafka_auto_create_topics);
  EXPECT_EQ(c->kafka_max_message_bytes, 100u << 10);
  EXPECT_EQ(c->kafka_max_request_bytes, 1u << 20);
  EXPECT_EQ(c->retention_check_interval.count(), 500);
  auto bad = LoadServeConfig({{"kafka.auto-create-topics", "maybe"}}, "", {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--kafka-auto-create-topics"), std::string::npos);
  EXPECT_NE(bad.status().message().find("maybe"), std::string::npos);
}

TEST(ServeConfig, NamesAreDerivedFromTheKey) {
  SettingInfo info{"wal.flush-interval", "", ""};
  EXPECT_EQ(info.Flag(), "--wal-flush-interval");
  EXPECT_EQ(info.Env(), "MINK_WAL_FLUSH_INTERVAL");
}

TEST(ServeConfig, TheHarnessFileSendsTheLakeToTheRestCatalog) {
  auto c = LoadServeConfig({}, std::string(MINK_SOURCE_DIR) + "/harness/mink.toml", {});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->lake_catalog, "rest");
  EXPECT_EQ(c->lake_uri, "http://iceberg-rest:8181");
  EXPECT_EQ(c->lake_warehouse, "-3@s3://mink-lake?endpoint=http://rustfs:9000&path-style=true&region=us-east-1");
  EXPECT_EQ(c->log_format, "json");
  EXPECT_TRUE(c->metrics);
}

}  // namespace
}  // namespace mink::config
