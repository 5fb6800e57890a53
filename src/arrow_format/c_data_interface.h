#pragma once
// The Arrow C data interface ABI (ArrowSchema, ArrowArray), declared as the specification
// prescribes: the guard macro lets any number of libraries declare the identical structs.

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Type description.
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback; null once released.
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data.
  void* private_data;
};

struct ArrowArray {
  // Array data description.
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback; null once released.
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data.
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifdef __cplusplus
}
#endif
