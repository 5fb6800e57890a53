// Writes the seed corpora of the fuzz targets: <dir>/request/ (every sample request and response
// of every API and version, with the 4 selector bytes request_fuzzer.cc reads, plus whole
// request frames) and <dir>/record_batch/ (sample batches with every codec).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "kafka/protocol/messages.h"
#include "kafka/protocol/record_batch.h"
#include "kafka/protocol/tests/samples.h"
#include "kafka/protocol/wire.h"

namespace mink::kafka {
namespace {

int written = 0;

void Write(const std::filesystem::path& dir, const std::string& name, const std::string& bytes) {
  std::ofstream(dir / name, std::ios::binary) << bytes;
  ++written;
}

int Main(const std::filesystem::path& root) {
  const auto request_dir = root / "request";
  const auto batch_dir = root / "record_batch";
  std::filesystem::create_directories(request_dir);
  std::filesystem::create_directories(batch_dir);
  const auto apis = AllApis();
  for (size_t i = 0; i < apis.size(); ++i) {
    const ApiInfo& api = apis[i];
    for (int16_t v = api.min_version; v <= api.max_version; ++v) {
      std::string selector;
      AppendBe16(&selector, static_cast<uint16_t>(i));
      AppendBe16(&selector, static_cast<uint16_t>(v - api.min_version));
      std::string body;
      if (EncodeRequest(testing::SampleRequest(api.key), v, &body).ok()) {
        Write(request_dir, std::string(api.name) + "-req-v" + std::to_string(v), selector + body);
      }
      body.clear();
      if (EncodeResponse(testing::SampleResponse(api.key), v, &body).ok()) {
        Write(request_dir, std::string(api.name) + "-resp-v" + std::to_string(v), selector + body);
      }
      std::string frame;
      RequestHeader header{static_cast<int16_t>(api.key), v, 1, "seed"};
      if (AppendRequestFrame(header, testing::SampleRequest(api.key), &frame).ok()) {
        Write(request_dir, std::string(api.name) + "-frame-v" + std::to_string(v), frame.substr(4));
      }
    }
  }
  const std::string records = testing::SampleRecords();
  Write(batch_dir, "plain-crc", std::string(1, '\0') + records);
  Write(batch_dir, "plain", std::string(1, '\x01') + records);
  for (int codec = 1; codec <= 4; ++codec) {
    std::vector<NewRecord> rows(3);
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i].timestamp = 1700000000000 + static_cast<int64_t>(i);
      rows[i].key = "key";
      rows[i].value = "a value that compresses a value that compresses";
      rows[i].headers = {{"h", std::string_view("v")}};
    }
    BatchOptions options;
    options.compression = static_cast<Compression>(codec);
    options.compress.snappy_xerial = codec == 2;
    auto batch = BuildRecordBatch(options, rows);
    if (!batch.ok()) return 1;
    // Mode byte: skip CRC checks; the high nibble picks the same codec for the direct decoder.
    const char mode = static_cast<char>(((codec - 1) << 4) | 1);
    Write(batch_dir, "codec-" + std::to_string(codec), std::string(1, mode) + *batch);
  }
  std::printf("kafka_fuzz_seeds: wrote %d seeds under %s\n", written, root.c_str());
  return 0;
}

}  // namespace
}  // namespace mink::kafka

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kafka_fuzz_seeds <output dir>\n");
    return 2;
  }
  return mink::kafka::Main(argv[1]);
}
