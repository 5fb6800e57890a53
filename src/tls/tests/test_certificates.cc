#include "test_certificates.h"

#include <cstdlib>

namespace mink::tls::testing {

Certificate MakeSelfSigned(const std::string& dir, const std::string& name) {
  Certificate c{dir + "/" + name + ".crt", dir + "/" + name + ".key"};
  const std::string command = "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost "
                              "-addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout " +
                              c.key + " -out " + c.cert + " 2>/dev/null";
  if (std::system(command.c_str()) != 0) return {};
  return c;
}

}  // namespace mink::tls::testing
