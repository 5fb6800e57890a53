#pragma once
// CertificateReloader: the certificate chain and private key a TLS listener serves, read again
// when their files change, so a renewed certificate is served without a restart. Installed on
// an OpenSSL server context (InstallOn), it hands every new handshake the current pair; before
// that it looks at the files' modification times, at most once per kCheckInterval, and loads
// them again when either changed. A pair that does not load (a half-written file, a key of
// another certificate) is logged and the old one kept; the next check tries again. Connections
// already open keep the certificate they were made with.
//
// The Kafka and HTTP API listeners (asio) and the Iceberg REST catalog's (cpp-httplib) install
// it on their contexts. gRPC (Flight) reads certificate files itself, and stops serving TLS when
// they do not load; it is given a mirror instead (MirrorTo): copies of the last pair that
// loaded, which a thread of the reloader's refreshes.
//
// Thread-safe: handshakes on any thread share one reloader.

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/result.h"
#include "tls/tls_files.h"

struct ssl_ctx_st;  // OpenSSL's SSL_CTX
struct ssl_st;      // OpenSSL's SSL

namespace mink::tls {

// Mutual TLS on an OpenSSL server context: a client must present a certificate that chains to
// one of `files.client_ca` (read once, at start), which the handshake names to it.
Status RequireClientCertificates(ssl_ctx_st* ctx, const ServerFiles& files);

class CertificateReloader {
 public:
  // How often a handshake may look at the files.
  static constexpr std::chrono::seconds kCheckInterval{5};

  // The reloader of these files: the one open already in this process (the node's listeners
  // share it), else a new one once the files are checked and loaded (InvalidArgument naming
  // what is wrong, as Check).
  static Result<std::shared_ptr<CertificateReloader>> Open(const ServerFiles& files);
  ~CertificateReloader();

  // Every handshake on `ctx` serves the current pair. The reloader must outlive the context.
  void InstallOn(ssl_ctx_st* ctx);
  // Loads the files again if they changed since the last load (and kCheckInterval passed since
  // the last look, unless `now`). True when a new pair is served from now on.
  bool MaybeReload(bool now = false);
  // The SHA-256 fingerprint of the certificate served now (hex), for logs and tests.
  std::string Fingerprint() const;
  // Once per reloader (later calls do nothing). Writes the current pair to a private directory of its own (0700) as one file, the key
  // then the chain (0600), and looks at the files every kCheckInterval on a thread from now
  // on, writing each pair that loads there (renamed into place, so a reader sees one pair or
  // the other, never half of each). Give mirror_file() as both the key and the certificate
  // file: PEM readers skip the blocks of the other kind. The copy goes with the reloader.
  Status StartMirror();
  std::string mirror_file() const { return mirror_dir_ + "/identity.pem"; }
  // With a client CA: its copy beside (read at start, as the other listeners do); "" without.
  std::string mirror_client_ca() const {
    return files_.client_ca.empty() ? "" : mirror_dir_ + "/client-ca.pem";
  }

  struct Pair;  // the loaded certificate, its chain and key (OpenSSL objects)

 private:
  explicit CertificateReloader(ServerFiles files) : files_(std::move(files)) {}
  static int OnHandshake(::ssl_st* ssl, void* reloader);
  // Writes the mirror's identity file (nothing without a mirror); caller holds mirror_mutex_.
  Status WriteMirrorLocked(const Pair& pair);

  const ServerFiles files_;
  mutable std::mutex mutex_;
  std::shared_ptr<const Pair> current_;
  std::timespec cert_time_{}, key_time_{};  // modification times of what current_ was read from
  SteadyTime last_check_{};

  std::mutex mirror_mutex_;  // guards mirror_dir_'s setting and the writes of the copies
  std::string mirror_dir_;   // "" without a mirror
  std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace mink::tls
