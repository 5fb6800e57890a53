#pragma once
// Compact binary rows, the value format of the KV state and its snapshots: a null bitmap of
// ceil(n/8) bytes (bit i set = field i is null), then each non-null field in order:
//   BOOLEAN, TINYINT: 1 byte; SMALLINT: 2 bytes LE; INT, DATE, TIME: zigzag varint;
//   BIGINT, TIMESTAMP(_LTZ): zigzag varint; FLOAT: 4 bytes LE; DOUBLE: 8 bytes LE;
//   DECIMAL: 16 bytes LE two's complement; STRING, BYTES: varint length + bytes;
//   ARRAY: varint count + elements each prefixed by a null flag byte; MAP: varint count + (key,
//   flag, value) pairs; ROW: a nested row (bitmap + fields).
// docs/formats/kv-snapshot.md has the details. Decoding checks every length against the input.

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "table/types.h"
#include "arrow_format/builder.h"
#include "table/value.h"

namespace mink::table {

void EncodeRow(const Row& row, const std::vector<LogicalType>& types, std::string* out);
Result<Row> DecodeRow(std::string_view data, const std::vector<LogicalType>& types);
// Decodes an encoded row straight into Arrow builders, one per column (null: the column is
// skipped), without a Row between: what snapshot reads use.
Status AppendEncodedRow(std::string_view data, const std::vector<LogicalType>& types,
                        const std::vector<arrow::ArrayBuilder*>& builders);

// Appends/reads unsigned LEB128 varints (shared with the key encoders).
void PutVarint64(std::string* out, uint64_t v);
bool GetVarint64(std::string_view* in, uint64_t* v);

}  // namespace mink::table
