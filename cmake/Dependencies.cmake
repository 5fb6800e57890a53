# Third-party packages, all from Debian 12 (see scripts/setup).
find_package(Threads REQUIRED)
find_package(nlohmann_json CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(tomlplusplus CONFIG REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(PostgreSQL REQUIRED)
find_package(CURL REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(ZLIB REQUIRED)
find_package(zstd CONFIG REQUIRED)
# Protobuf has no CMake config in Debian 12: the FindProtobuf module gives protobuf::protoc.
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)  # libcpp-httplib-dev: HTTP serving
pkg_check_modules(AVRO REQUIRED IMPORTED_TARGET avro-c)  # libavro-dev: reading Iceberg manifests
pkg_check_modules(RDKAFKA REQUIRED IMPORTED_TARGET rdkafka)  # librdkafka-dev: Kafka outside Mink
find_package(Snappy CONFIG REQUIRED)  # Snappy::snappy (libsnappy-dev)
find_package(prometheus-cpp CONFIG REQUIRED)  # prometheus-cpp::core (prometheus-cpp-dev): metrics
find_package(FlatBuffers CONFIG REQUIRED)  # flatbuffers::flatbuffers and flatbuffers::flatc
find_package(RocksDB CONFIG REQUIRED)  # RocksDB::rocksdb-shared (librocksdb-dev): primary-key working copies
if(MINK_BUILD_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
# DuckDB 1.4.4 for mink-query: the header tree and the prebuilt libduckdb.so of the pinned npm
# packages, fetched by scripts/setup into MINK_DUCKDB_ROOT (nothing of DuckDB is committed).
# SYSTEM includes: DuckDB's headers are not held to our warnings. Only src/query links it.
if(EXISTS "${MINK_DUCKDB_ROOT}/lib/libduckdb.so" AND EXISTS "${MINK_DUCKDB_ROOT}/include/duckdb.hpp")
  add_library(DuckDB::duckdb SHARED IMPORTED)
  set_target_properties(DuckDB::duckdb PROPERTIES
    IMPORTED_LOCATION "${MINK_DUCKDB_ROOT}/lib/libduckdb.so"
    IMPORTED_SONAME "libduckdb.so"
    INTERFACE_INCLUDE_DIRECTORIES "${MINK_DUCKDB_ROOT}/include"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${MINK_DUCKDB_ROOT}/include")
endif()
