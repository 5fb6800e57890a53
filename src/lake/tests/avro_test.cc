// Avro: the binary encoding's vectors, and container files that python3-avro (Debian's, an
// independent reader) reads back with their schema, metadata and records.

#include "lake/avro.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_env.h"

namespace mink::lake::avro {
namespace {

std::string Hex(const std::string& bytes) {
  std::string out;
  char buf[4];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x", c);
    out += buf;
  }
  return out;
}

TEST(Avro, ZigzagVarintsStringsAndArrays) {
  Encoder e;
  for (int64_t v : std::initializer_list<int64_t>{0, -1, 1, 63, -64, 64, -65, int64_t{1} << 40}) {
    e.Long(v);
  }
  EXPECT_EQ(Hex(e.Take()), "0001027e7f8001810180808080804" "0");
  e.String("iceberg");
  EXPECT_EQ(Hex(e.Take()), "0e69636562657267");
  e.ArrayStart(2);
  e.Int(1);
  e.Int(-2);
  e.ArrayEnd();
  e.ArrayStart(0);
  e.ArrayEnd();
  e.Null();
  e.Branch(1);
  e.Boolean(true);
  EXPECT_EQ(Hex(e.Take()), "04020300" "00" "00" "0201");
}

// Runs python3 with `script` on `file`; its stdout (empty when python3-avro is missing and
// services are not required: the test then skips).
std::string Python(const std::string& script, const std::string& file) {
  const std::string dir = testing_env::MakeTempDir("avro-py");
  {
    std::ofstream(dir + "/check.py") << script;
  }
  const std::string out = dir + "/out.txt";
  const std::string cmd = "/usr/bin/python3 " + dir + "/check.py " + file + " > " + out + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  if (rc != 0) ADD_FAILURE() << "python3 failed: " << text.str();
  return text.str();
}

TEST(Avro, AContainerFileReadsBackInPythonAvro) {
  if (std::system("/usr/bin/python3 -c 'import avro.datafile' 2>/dev/null") != 0) {
    if (std::getenv("MINK_TEST_REQUIRE_SERVICES")) FAIL() << "python3-avro is missing";
    GTEST_SKIP() << "python3-avro is missing (scripts/setup installs it)";
  }
  const std::string schema = R"({"type":"record","name":"r","fields":[
      {"name":"id","type":"long","field-id":1},
      {"name":"name","type":["null","string"],"default":null,"field-id":2},
      {"name":"tags","type":{"type":"array","items":"int","element-id":4},"field-id":3}]})";
  ContainerWriter w(schema, {{"format-version", "2"}, {"content", "data"}});
  for (int64_t i = 0; i < 3; ++i) {
    Encoder e;
    e.Long(i * 1000000007LL);
    if (i == 1) {
      e.Null();
    } else {
      e.Branch(1);
      e.String("n" + std::to_string(i));
    }
    e.ArrayStart(i);
    for (int j = 0; j < i; ++j) e.Int(j - 1);
    e.ArrayEnd();
    w.Append(e.bytes());
  }
  const std::string file = testing_env::MakeTempDir("avro") + "/f.avro";
  std::ofstream(file, std::ios::binary) << w.Finish();
  const std::string got = Python(R"(
import sys, json, avro.datafile, avro.io
with open(sys.argv[1], 'rb') as f:
    r = avro.datafile.DataFileReader(f, avro.io.DatumReader())
    print(r.meta['format-version'].decode(), r.meta['content'].decode(), r.meta['avro.codec'].decode())
    print(json.loads(r.meta['avro.schema'])['fields'][2]['type']['element-id'])
    for rec in r:
        print(json.dumps(rec, sort_keys=True))
)",
                                 file);
  EXPECT_EQ(got,
            "2 data null\n4\n"
            "{\"id\": 0, \"name\": \"n0\", \"tags\": []}\n"
            "{\"id\": 1000000007, \"name\": null, \"tags\": [-1]}\n"
            "{\"id\": 2000000014, \"name\": \"n2\", \"tags\": [-1, 0]}\n");
}

}  // namespace
}  // namespace mink::lake::avro
