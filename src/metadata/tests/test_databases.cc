#include "test_databases.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <atomic>
#include <random>

#include "test_env.h"

namespace mink::metadata::testing {

std::string FreshDatabaseUrl(const std::string& backend) {
  static std::atomic<int> counter{0};
  if (backend == "sqlite") {
    return "sqlite:" + testing_env::MakeTempDir("meta") + "/meta.db";
  }
  std::string base = testing_env::RequiredEnv("MINK_TEST_PG_URL");
  if (base.empty()) return "";
  std::string name = "mink_test_" + std::to_string(std::random_device{}() % 1000000000) + "_" +
                     std::to_string(counter++);
  PGconn* conn = PQconnectdb(base.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    ADD_FAILURE() << "cannot connect to " << base << ": " << PQerrorMessage(conn);
    PQfinish(conn);
    return "";
  }
  PGresult* res = PQexec(conn, ("CREATE DATABASE " + name).c_str());
  bool ok = PQresultStatus(res) == PGRES_COMMAND_OK;
  if (!ok) ADD_FAILURE() << "CREATE DATABASE failed: " << PQerrorMessage(conn);
  PQclear(res);
  PQfinish(conn);
  if (!ok) return "";
  // Replace the database name at the end of the URL.
  size_t slash = base.rfind('/');
  return base.substr(0, slash + 1) + name;
}

}  // namespace mink::metadata::testing
