#include "table_bench_flags.h"

#include <sstream>

#include <CLI/CLI.hpp>

namespace mink::bench {

bool Flags::InList(const std::string& list, const std::string& phase) {
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == phase) return true;
  }
  return false;
}

std::optional<int> ParseFlags(int argc, char** argv, Flags* f) {
  CLI::App app{"table_bench: the tables issue's figures through the Flight API (bench/README.md)"};
  app.add_option("--address", f->address,
                 "use a running node HOST:PORT (default: start one in this process on a free "
                 "loopback port, SQLite + file:// store in a new directory)");
  app.add_option("--dir", f->dir,
                 "the in-process node's directory is created under it, removed at exit "
                 "(default $TMPDIR or /tmp)");
  app.add_flag("--keep", f->keep, "keep that directory (or, with --address, the tables)");
  app.add_option("--rows", f->rows, "rows of the log table")->check(CLI::Range(0, 20'000'000));
  app.add_option("--pk-rows", f->pk_rows, "keys of the primary-key table")
      ->check(CLI::Range(0, 20'000'000));
  app.add_option("--put-rows", f->put_rows, "rows per DoPut")->check(CLI::Range(1, 1'000'000));
  app.add_option("--batch-rows", f->batch_rows, "rows per Arrow record batch")
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--scans", f->scans, "DoGet scans of all columns and of one column, interleaved")
      ->check(CLI::Range(0, 100));
  app.add_option("--scan-column", f->scan_column, "the column of the 1-column scan");
  app.add_option("--buckets", f->buckets, "bucket count of both tables")->check(CLI::Range(1, 64));
  app.add_option("--block-cache-mb", f->block_cache_mb,
                 "block cache of the in-process node in MiB (default: the node's, 64)")
      ->check(CLI::Range(0, 16'384));
  app.add_option("--seconds", f->seconds, "deadline of each load, pass or scan")
      ->check(CLI::Range(1, 600));
  app.add_option("--phases", f->phases, "comma-separated: limits, log, pk");
  app.add_option("--scan-kinds", f->scan_kinds,
                 "the log table's scans: all (10 columns), one");
  app.add_option("--emit-json", f->emit_json,
                 "print N rows of the log table as JSON lines (for mink write), exit")
      ->check(CLI::Range(0, 100'000'000));
  app.add_flag("--print-log-columns", f->print_log_columns,
               "print the log table's column definitions, one a line, exit");
  app.add_flag("--json", f->json, "also print one JSON line with every figure");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

}  // namespace mink::bench
