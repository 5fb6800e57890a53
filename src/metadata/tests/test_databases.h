#pragma once
// Fresh metadata databases for tests: a new SQLite file, or a new database on the PostgreSQL
// server the harness started (MINK_TEST_PG_URL).

#include <string>

namespace mink::metadata::testing {

// "sqlite" or "postgres" -> a URL of an empty database; "" if the backend is unavailable
// (which fails the test when the harness requires services).
std::string FreshDatabaseUrl(const std::string& backend);

}  // namespace mink::metadata::testing
