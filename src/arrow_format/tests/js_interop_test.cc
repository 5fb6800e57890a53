// Interop with the real Arrow JS implementation (npm apache-arrow) through
// tests/node/arrow_interop.js: JS reads the streams Mink writes and Mink reads the streams JS
// writes, every type with nulls, plain and LZ4-compressed; values are compared exactly through
// their canonical JSON form (see test_util.h).

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "arrow_format/ipc.h"
#include "test_env.h"
#include "test_util.h"

namespace mink::arrow {
namespace {

using nlohmann::json;

const std::string kScript = std::string(MINK_SOURCE_DIR) + "/tests/node/arrow_interop.js";
const std::string kModules =
    std::string(MINK_SOURCE_DIR) + "/tests/node/node_modules/apache-arrow/package.json";

bool RequireServices() {
  const char* v = std::getenv("MINK_TEST_REQUIRE_SERVICES");
  return v != nullptr && std::string(v) == "1";
}

// Runs a shell command; returns its exit code and fills stdout and stderr.
int Run(const std::string& command, std::string* out, std::string* err) {
  std::string err_file = testing_env::MakeTempDir("arrow-js-err") + "/stderr";
  FILE* pipe = ::popen((command + " 2>" + err_file).c_str(), "r");
  if (pipe == nullptr) return -1;
  char buf[65536];
  size_t n;
  out->clear();
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out->append(buf, n);
  int status = ::pclose(pipe);
  std::ifstream in(err_file);
  std::stringstream ss;
  ss << in.rdbuf();
  *err = ss.str();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// "" when node and apache-arrow are there, else what is missing.
std::string MissingTooling() {
  std::string out, err;
  if (Run("command -v node", &out, &err) != 0 || out.empty()) return "node is not on PATH";
  if (!std::filesystem::exists(kModules))
    return kModules + " is missing (run npm ci in tests/node)";
  if (!std::filesystem::exists(kScript)) return kScript + " is missing";
  return "";
}

#define MINK_REQUIRE_NODE()                                                             \
  do {                                                                                  \
    std::string missing = MissingTooling();                                             \
    if (!missing.empty()) {                                                             \
      if (RequireServices()) FAIL() << missing << ", but MINK_TEST_REQUIRE_SERVICES=1"; \
      GTEST_SKIP() << missing;                                                          \
    }                                                                                   \
  } while (0)

std::vector<json> RunScript(const std::string& args) {
  std::string out, err;
  int rc = Run("node " + kScript + " " + args, &out, &err);
  EXPECT_EQ(rc, 0) << "node " << args << " failed:\n" << err;
  std::vector<json> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    lines.push_back(json::parse(line, nullptr, /*allow_exceptions=*/false));
    EXPECT_FALSE(lines.back().is_discarded()) << "not JSON: " << line;
  }
  return lines;
}

std::string LabelOf(bool lz4) { return lz4 ? "lz4" : "plain"; }

class JsInterop : public ::testing::TestWithParam<bool> {};

TEST_P(JsInterop, ArrowJsReadsEveryTypeMinkWrites) {
  MINK_REQUIRE_NODE();
  const bool lz4 = GetParam();
  std::vector<RecordBatchPtr> batches = {testing::AllTypesBatch(0, 10),
                                         testing::AllTypesBatch(10, 13)};
  IpcWriteOptions options;
  if (lz4) options.compression = CompressionCodec::kLz4Frame;
  auto bytes = WriteStream(testing::AllTypesSchema(), batches, options);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::string path = testing_env::MakeTempDir("arrow-js") + "/mink.arrows";
  std::ofstream(path, std::ios::binary) << *bytes;

  std::vector<json> lines = RunScript("read " + path + (lz4 ? " --lz4" : ""));
  ASSERT_EQ(lines.size(), 1u + 23u);
  const json& schema = lines[0]["schema"];
  SchemaPtr expected = testing::AllTypesSchema();
  ASSERT_EQ(schema.size(), static_cast<size_t>(expected->num_fields()));
  for (int i = 0; i < expected->num_fields(); ++i) {
    const Field& f = expected->field(i);
    EXPECT_EQ(schema[i]["name"], f.name());
    EXPECT_EQ(schema[i]["nullable"], f.nullable()) << f.name();
    EXPECT_EQ(schema[i]["type"], testing::JsTypeName(*f.type())) << f.name();
  }
  std::vector<json> rows;
  for (const auto& batch : batches) {
    for (json& row : testing::RowsJson(*batch)) rows.push_back(std::move(row));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const json& js_row = lines[r + 1]["row"];
    for (auto it = rows[r].begin(); it != rows[r].end(); ++it) {
      EXPECT_EQ(js_row[it.key()], it.value()) << "row " << r << " column " << it.key();
    }
  }
}

TEST_P(JsInterop, MinkReadsEveryTypeArrowJsWrites) {
  MINK_REQUIRE_NODE();
  const bool lz4 = GetParam();
  std::string path = testing_env::MakeTempDir("arrow-js") + "/js.arrows";
  std::vector<json> lines = RunScript("write " + path + (lz4 ? " --lz4" : ""));
  ASSERT_GE(lines.size(), 2u);

  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto read = ReadStream(Buffer::FromString(ss.str()));
  ASSERT_TRUE(read.ok()) << read.status();

  const json& schema = lines[0]["schema"];
  ASSERT_EQ(schema.size(), static_cast<size_t>(read->schema->num_fields()));
  bool saw_dictionary = false;
  for (int i = 0; i < read->schema->num_fields(); ++i) {
    const Field& f = read->schema->field(i);
    std::string js_type = schema[i]["type"];
    // Dictionary<Int32, Utf8> arrives materialised as plain Utf8.
    if (js_type.rfind("Dictionary<", 0) == 0) {
      saw_dictionary = true;
      js_type = js_type.substr(js_type.find(", ") + 2);
      js_type.pop_back();
    }
    EXPECT_EQ(schema[i]["name"], f.name());
    EXPECT_EQ(schema[i]["nullable"], f.nullable()) << f.name();
    EXPECT_EQ(js_type, testing::JsTypeName(*f.type())) << f.name();
  }
  EXPECT_TRUE(saw_dictionary) << "the JS table should include a Dictionary<Utf8> column";

  std::vector<json> rows;
  for (const auto& batch : read->batches) {
    EXPECT_TRUE(batch->Validate().ok());
    for (json& row : testing::RowsJson(*batch)) rows.push_back(std::move(row));
  }
  ASSERT_EQ(rows.size(), lines.size() - 1);
  for (size_t r = 0; r < rows.size(); ++r) {
    const json& js_row = lines[r + 1]["row"];
    for (auto it = js_row.begin(); it != js_row.end(); ++it) {
      EXPECT_EQ(rows[r][it.key()], it.value()) << "row " << r << " column " << it.key();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Compression, JsInterop, ::testing::Values(false, true),
                         [](const auto& info) { return LabelOf(info.param); });

}  // namespace
}  // namespace mink::arrow
