#pragma once
// Bucketing: which bucket a row's bucket key goes to. Three functions, one per lake format, as
// Fluss defines them (docs/tables.md, Bucketing, with the test vectors); a table records which
// one it uses.
//   native:  abs(murmur3(LE4(M42(key)), seed 0)) % n, key = compacted key encoding
//   paimon:  abs(M42(key) % n), key = a Paimon BinaryRow of the bucket-key fields
//   iceberg: (murmur3(key, seed 0) & INT_MAX) % n, key = Iceberg single-value bytes (one column)
// M42 is Flink's murmur3 variant with seed 42 whose tail bytes each take a full round.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/types.h"
#include "table/value.h"

namespace mink::table {

enum class BucketFunction { kNative, kPaimon, kIceberg };

Result<BucketFunction> ParseBucketFunction(std::string_view name);
std::string_view BucketFunctionName(BucketFunction f);

// The hash primitives.
int32_t FlinkMurmur42(std::string_view bytes);
int32_t Murmur3x86(std::string_view bytes, uint32_t seed);

// Bucket of already-encoded key bytes.
int32_t BucketOf(BucketFunction f, std::string_view key_bytes, int32_t num_buckets);

// Key encoders over the bucket-key fields (in declared order). A null key field is an error.
Result<std::string> EncodeCompactedKey(const std::vector<Value>& fields,
                                       const std::vector<LogicalType>& types);
Result<std::string> EncodePaimonKey(const std::vector<Value>& fields,
                                    const std::vector<LogicalType>& types);
Result<std::string> EncodeIcebergKey(const std::vector<Value>& fields,
                                     const std::vector<LogicalType>& types);
Result<std::string> EncodeBucketKey(BucketFunction f, const std::vector<Value>& fields,
                                    const std::vector<LogicalType>& types);

}  // namespace mink::table
