#pragma once
// Random names for things that must not collide across nodes and restarts: UUIDs (Iceberg
// tables' uuids, files' names) and hex ids (a metadata append's id). Not secrets: a per-thread
// Mersenne Twister seeded from std::random_device; tokens and keys use OpenSSL's RAND_bytes.

#include <cstddef>
#include <string>

namespace mink {

// A random version 4 UUID in its 36-character text form.
std::string NewUuid();

// `bytes` random bytes as 2 * `bytes` lowercase hex digits.
std::string RandomHex(size_t bytes);

}  // namespace mink
