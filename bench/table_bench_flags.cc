#include "table_bench_flags.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace mink::bench {

const char kUsage[] =
    "usage: table_bench [flags]\n"
    "  --address HOST:PORT  use a running node (default: start one in this process on a free\n"
    "                       loopback port, SQLite + file:// store in a new directory)\n"
    "  --dir PATH           the in-process node's directory is created under PATH, removed at\n"
    "                       exit (default $TMPDIR or /tmp)\n"
    "  --keep               keep that directory (or, with --address, the tables)\n"
    "  --rows N             rows of the log table (default 1000000, max 20000000)\n"
    "  --pk-rows N          keys of the primary-key table (default 1000000, max 20000000)\n"
    "  --put-rows N         rows per DoPut (default 100000)\n"
    "  --batch-rows N       rows per Arrow record batch (default 10000)\n"
    "  --scans N            DoGet scans of all columns and of one column, interleaved (default 5)\n"
    "  --scan-column NAME   the column of the 1-column scan (default bytes)\n"
    "  --buckets N          bucket count of both tables (default 1)\n"
    "  --block-cache-mb N   block cache of the in-process node in MiB (default: the node's, 64)\n"
    "  --seconds N          deadline of each load, pass or scan (default 300, max 600)\n"
    "  --phases LIST        comma-separated: limits, log, pk (default all)\n"
    "  --scan-kinds LIST    the log table's scans: all (10 columns), one (default all,one)\n"
    "  --emit-json N        print N rows of the log table as JSON lines (for mink write), exit\n"
    "  --print-log-columns  print the log table's column definitions, one a line, exit\n"
    "  --json               also print one JSON line with every figure\n";

bool Flags::InList(const std::string& list, const std::string& phase) {
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item == phase) return true;
  }
  return false;
}

bool ParseFlags(int argc, char** argv, Flags* f, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (size_t eq = arg.find('='); eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      has_value = true;
    }
    auto next = [&]() -> bool {
      if (has_value) return true;
      if (i + 1 >= argc) return false;
      value = argv[++i];
      return true;
    };
    auto number = [&](long long lo, long long hi, auto* out) -> bool {
      char* end = nullptr;
      errno = 0;
      long long v = 0;
      if (next()) v = std::strtoll(value.c_str(), &end, 10);
      if (end == nullptr || end == value.c_str() || *end != '\0' || errno != 0 || v < lo ||
          v > hi) {
        *error =
            arg + " needs a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return false;
      }
      *out = static_cast<std::remove_pointer_t<decltype(out)>>(v);
      return true;
    };
    auto text = [&](std::string* out) -> bool {
      if (!next() || value.empty()) {
        *error = arg + " needs a value";
        return false;
      }
      *out = value;
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      *error = "";
      return false;
    } else if (arg == "--address") {
      if (!text(&f->address)) return false;
    } else if (arg == "--dir") {
      if (!text(&f->dir)) return false;
    } else if (arg == "--keep") {
      f->keep = true;
    } else if (arg == "--json") {
      f->json = true;
    } else if (arg == "--print-log-columns") {
      f->print_log_columns = true;
    } else if (arg == "--rows") {
      if (!number(0, 20'000'000, &f->rows)) return false;
    } else if (arg == "--pk-rows") {
      if (!number(0, 20'000'000, &f->pk_rows)) return false;
    } else if (arg == "--put-rows") {
      if (!number(1, 1'000'000, &f->put_rows)) return false;
    } else if (arg == "--batch-rows") {
      if (!number(1, 1'000'000, &f->batch_rows)) return false;
    } else if (arg == "--scans") {
      if (!number(0, 100, &f->scans)) return false;
    } else if (arg == "--scan-column") {
      if (!text(&f->scan_column)) return false;
    } else if (arg == "--buckets") {
      if (!number(1, 64, &f->buckets)) return false;
    } else if (arg == "--block-cache-mb") {
      if (!number(0, 16'384, &f->block_cache_mb)) return false;
    } else if (arg == "--seconds") {
      if (!number(1, 600, &f->seconds)) return false;
    } else if (arg == "--phases") {
      if (!text(&f->phases)) return false;
    } else if (arg == "--scan-kinds") {
      if (!text(&f->scan_kinds)) return false;
    } else if (arg == "--emit-json") {
      if (!number(0, 100'000'000, &f->emit_json)) return false;
    } else {
      *error = "unknown flag " + arg;
      return false;
    }
  }
  return true;
}

}  // namespace mink::bench
