#pragma once
// Test-only helpers: temporary directories and the services the harness (scripts/with-test-services)
// starts for `make test`.

#include <string>

namespace mink::testing_env {

// A new empty directory under $TMPDIR (or /tmp), removed at process exit unless
// MINK_TEST_KEEP_TMP is set.
std::string MakeTempDir(const std::string& name);

// The value of an environment variable naming a test service (a PostgreSQL URL, an S3 URI).
// Returns "" when unset, unless MINK_TEST_REQUIRE_SERVICES=1, in which case a missing service
// fails the test: under `make test` every service must be there, so nothing is silently skipped.
std::string RequiredEnv(const std::string& name);

// A free TCP port on 127.0.0.1.
int FreePort();

}  // namespace mink::testing_env
