#pragma once
// table_bench's flags (--help lists them).

#include <cstdint>
#include <optional>
#include <string>

namespace mink::bench {

struct Flags {
  std::string address;  // a running node; empty: start one in this process
  std::string dir;      // parent of the in-process node's directory; empty: $TMPDIR or /tmp
  bool keep = false;
  int64_t rows = 1'000'000;
  int64_t pk_rows = 1'000'000;
  int64_t put_rows = 100'000;
  int64_t batch_rows = 10'000;
  int scans = 5;
  int seconds = 300;
  int buckets = 1;
  int64_t block_cache_mb = -1;  // the in-process node's block cache; -1: the node's default
  std::string scan_column = "bytes";
  std::string phases = "limits,log,pk";
  std::string scan_kinds = "all,one";  // which scans of the log table run (for profiling)
  int64_t emit_json = -1;
  bool print_log_columns = false;
  bool json = false;

  bool Has(const std::string& phase) const { return InList(phases, phase); }
  bool Scans(const std::string& kind) const { return InList(scan_kinds, kind); }
  static bool InList(const std::string& list, const std::string& item);
};

// Fills `flags`; nullopt to run, else the exit status after --help (0) or a bad flag (printed).
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags);

}  // namespace mink::bench
