#include "test_env.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

namespace mink::testing_env {
namespace {

std::mutex g_mutex;
std::vector<std::string>* g_dirs = nullptr;

void RemoveDirs() {
  if (std::getenv("MINK_TEST_KEEP_TMP") != nullptr || g_dirs == nullptr) return;
  for (const auto& d : *g_dirs) {
    std::error_code ec;
    std::filesystem::remove_all(d, ec);
  }
}

}  // namespace

std::string MakeTempDir(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base ? base : "/tmp") + "/mink-" + name + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << tmpl;
    return "/nonexistent";
  }
  std::string dir(buf.data());
  std::lock_guard<std::mutex> lock(g_mutex);
  if (g_dirs == nullptr) {
    g_dirs = new std::vector<std::string>();
    std::atexit(RemoveDirs);
  }
  g_dirs->push_back(dir);
  return dir;
}

std::string RequiredEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value != nullptr && *value != '\0') return value;
  const char* require = std::getenv("MINK_TEST_REQUIRE_SERVICES");
  if (require != nullptr && std::string(require) == "1") {
    ADD_FAILURE() << name << " is not set, but MINK_TEST_REQUIRE_SERVICES=1: the test harness "
                  << "should have started this service";
  }
  return "";
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

}  // namespace mink::testing_env
