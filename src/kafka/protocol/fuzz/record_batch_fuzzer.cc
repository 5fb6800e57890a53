// libFuzzer target: the RecordBatch v2 decoder. The first byte chooses whether CRCs are checked
// (mostly not, so that the fuzzer reaches the record decoder) and whether a truncated tail is
// allowed; the rest is a RECORDS blob. Decompression is bounded at 1 MiB per batch, and the run
// uses -malloc_limit_mb, so an allocation driven by a length in the input fails the run.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kafka/protocol/compression.h"
#include "kafka/protocol/record_batch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t mode = data[0];
  std::string_view records(reinterpret_cast<const char*>(data) + 1, size - 1);
  mink::kafka::SplitOptions split;
  split.verify_crc = (mode & 0x7) == 0;
  split.allow_truncated_tail = (mode & 0x8) != 0;
  mink::kafka::DecodeOptions decode;
  decode.max_decompressed_bytes = 1u << 20;
  auto batches = mink::kafka::SplitBatches(records, split);
  if (batches.ok()) {
    for (const auto& batch : *batches) (void)mink::kafka::DecodeBatch(batch, decode);
  }
  // The codecs directly, on the same bytes.
  const auto codec = static_cast<mink::kafka::Compression>(1 + (mode >> 4) % 4);
  (void)mink::kafka::Decompress(codec, records, 1u << 20);
  return 0;
}
