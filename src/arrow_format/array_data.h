#pragma once
// ArrayData: the immutable, shareable content of one Arrow array (no slicing offset: element 0
// is the first element of every buffer). Arrays are built by builders, decoded from IPC or
// imported through the C data interface, and then only read.
//
// Buffers per type, as in the Arrow IPC body:
//   null                          (none)
//   bool, fixed-width types       [validity, values]
//   utf8, binary                  [validity, int32 offsets (length + 1), data]
//   list, map                     [validity, int32 offsets (length + 1)] + one child
//   struct                        [validity] + one child per field
// buffers[0] (validity) is null when null_count == 0.

#include <cstdint>
#include <memory>
#include <vector>

#include "arrow_format/buffer.h"
#include "arrow_format/type.h"
#include "base/status.h"

namespace mink::arrow {

struct ArrayData;
using ArrayDataPtr = std::shared_ptr<const ArrayData>;

struct ArrayData {
  DataTypePtr type;
  int64_t length = 0;
  int64_t null_count = 0;
  std::vector<BufferPtr> buffers;
  std::vector<ArrayDataPtr> children;
};

// The number of buffers ArrayData::buffers holds for a type.
int NumBuffers(TypeId id);

// Checks everything an accessor relies on, recursively: buffer count and sizes, offsets that
// start at >= 0, never decrease and stay inside the data or child, child lengths and types,
// and that null_count matches the validity bitmap. O(length). Arrays decoded from untrusted
// bytes pass this before anyone reads them.
Status ValidateArrayData(const ArrayData& data);

// Logical equality: same type, length, nulls in the same slots, equal values in valid slots.
bool ArrayDataEquals(const ArrayData& a, const ArrayData& b);

}  // namespace mink::arrow
