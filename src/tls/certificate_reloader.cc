#include "tls/certificate_reloader.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>

#include "base/log.h"
#include "base/strings.h"

namespace mink::tls {

struct CertificateReloader::Pair {
  std::string cert_pem, key_pem;  // the files' text, for a mirror
  X509* leaf = nullptr;
  STACK_OF(X509)* chain = nullptr;  // the intermediates after the leaf
  EVP_PKEY* key = nullptr;
  ~Pair() {
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;

Bio MemoryOf(const std::string& text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())), BIO_free);
}

// The pair in the files, or why not (the key checked against the certificate).
Result<std::shared_ptr<const CertificateReloader::Pair>> LoadPair(const ServerFiles& files) {
  ERR_clear_error();
  auto pair = std::make_shared<CertificateReloader::Pair>();
  MINK_ASSIGN_OR_RETURN(pair->cert_pem, ReadPem(files.cert, "--tls-cert"));
  MINK_ASSIGN_OR_RETURN(pair->key_pem, ReadPem(files.key, "--tls-key"));
  Bio cert = MemoryOf(pair->cert_pem);
  pair->leaf = PEM_read_bio_X509_AUX(cert.get(), nullptr, nullptr, nullptr);
  if (pair->leaf == nullptr) return InvalidArgumentError("--tls-cert " + files.cert + " holds no certificate");
  pair->chain = sk_X509_new_null();
  while (X509* next = PEM_read_bio_X509(cert.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(pair->chain, next);
  }
  Bio key = MemoryOf(pair->key_pem);
  pair->key = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
  ERR_clear_error();  // the end of the chain reads as an error
  if (pair->key == nullptr) return InvalidArgumentError("--tls-key " + files.key + " is not a private key");
  if (X509_check_private_key(pair->leaf, pair->key) != 1) {
    ERR_clear_error();
    return InvalidArgumentError("--tls-key " + files.key +
                                " does not belong to the certificate of --tls-cert");
  }
  return std::shared_ptr<const CertificateReloader::Pair>(std::move(pair));
}

bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return ::fsync(fd) == 0;
}

// Written beside, then renamed into place whole; readable by this user only.
Status WriteFileWhole(const std::string& path, const std::string& text) {
  const std::string part = path + ".part";
  const int fd = open(part.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return UnavailableError("cannot write " + part + ": " + std::strerror(errno));
  const bool written = write_all(fd, text);
  close(fd);
  if (!written || rename(part.c_str(), path.c_str()) != 0) {
    return UnavailableError("cannot write " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

std::timespec ModifiedAt(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return {};
  return st.st_mtim;
}

bool Same(const std::timespec& a, const std::timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

Status RequireClientCertificates(ssl_ctx_st* ctx, const ServerFiles& files) {
  ERR_clear_error();
  if (SSL_CTX_load_verify_locations(ctx, files.client_ca.c_str(), nullptr) != 1) {
    ERR_clear_error();
    return InvalidArgumentError("--tls-client-ca " + files.client_ca + " does not load");
  }
  STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(files.client_ca.c_str());
  if (names == nullptr) {
    ERR_clear_error();
    return InvalidArgumentError("--tls-client-ca " + files.client_ca + " holds no certificate");
  }
  SSL_CTX_set_client_CA_list(ctx, names);  // takes them
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  return Status::Ok();
}

Result<std::shared_ptr<CertificateReloader>> CertificateReloader::Open(const ServerFiles& files) {
  // One per set of files in the process, shared by the listeners that serve them: the files
  // are looked at, loaded and complained about once, not once per listener.
  static std::mutex open_mutex;
  static std::map<std::string, std::weak_ptr<CertificateReloader>> open;
  const std::string id = files.cert + '\n' + files.key + '\n' + files.client_ca;
  std::lock_guard<std::mutex> lock(open_mutex);
  if (auto shared = open[id].lock()) return shared;
  MINK_RETURN_IF_ERROR(Check(files));
  if (!files.enabled()) return InvalidArgumentError("no certificate to serve (--tls-cert)");
  std::shared_ptr<CertificateReloader> reloader(new CertificateReloader(files));
  reloader->cert_time_ = ModifiedAt(files.cert);
  reloader->key_time_ = ModifiedAt(files.key);
  MINK_ASSIGN_OR_RETURN(reloader->current_, LoadPair(files));
  reloader->last_check_ = SteadyNow();
  open[id] = reloader;
  return reloader;
}

CertificateReloader::~CertificateReloader() {
  {
    std::lock_guard<std::mutex> lock(watch_mutex_);
    stopping_ = true;
  }
  watch_cv_.notify_all();
  if (watcher_.joinable()) watcher_.join();
  if (!mirror_dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(mirror_dir_, ignored);
  }
}

Status CertificateReloader::StartMirror() {
  std::unique_lock<std::mutex> lock(mirror_mutex_);
  if (!mirror_dir_.empty()) return Status::Ok();
  std::error_code ec;
  std::string pattern = (std::filesystem::temp_directory_path(ec) / "mink-tls-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {  // 0700
    return UnavailableError("cannot make a directory for the TLS certificate's copy: " +
                            std::string(std::strerror(errno)));
  }
  mirror_dir_ = pattern;
  std::shared_ptr<const Pair> pair;
  {
    std::lock_guard<std::mutex> current(mutex_);
    pair = current_;
  }
  Status written = WriteMirrorLocked(*pair);
  if (written.ok() && !files_.client_ca.empty()) {
    auto client_ca = ReadPem(files_.client_ca, "--tls-client-ca");
    written = client_ca.ok() ? WriteFileWhole(mirror_client_ca(), *client_ca) : client_ca.status();
  }
  if (!written.ok()) {  // no half-made mirror: a later call starts afresh
    std::error_code ignored;
    std::filesystem::remove_all(mirror_dir_, ignored);
    mirror_dir_.clear();
    return written;
  }
  lock.unlock();
  watcher_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(watch_mutex_);
    while (!watch_cv_.wait_for(lock, kCheckInterval, [&] { return stopping_; })) {
      lock.unlock();
      MaybeReload(/*now=*/true);
      lock.lock();
    }
  });
  return Status::Ok();
}

Status CertificateReloader::WriteMirrorLocked(const Pair& pair) {
  if (mirror_dir_.empty()) return Status::Ok();  // no mirror
  std::string identity = pair.key_pem;
  if (!identity.empty() && identity.back() != '\n') identity += '\n';
  return WriteFileWhole(mirror_file(), identity + pair.cert_pem);
}

void CertificateReloader::InstallOn(ssl_ctx_st* ctx) {
  SSL_CTX_set_cert_cb(ctx, &CertificateReloader::OnHandshake, this);
}

int CertificateReloader::OnHandshake(::ssl_st* ssl, void* arg) {
  auto* self = static_cast<CertificateReloader*>(arg);
  self->MaybeReload();
  std::shared_ptr<const Pair> pair;
  {
    std::lock_guard<std::mutex> lock(self->mutex_);
    pair = self->current_;
  }
  // OpenSSL takes its own references to the certificate, the chain's and the key.
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, /*override=*/1) == 1 ? 1 : 0;
}

bool CertificateReloader::MaybeReload(bool now) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!now && SteadyNow() - last_check_ < kCheckInterval) return false;
    last_check_ = SteadyNow();
  }
  const std::timespec cert_time = ModifiedAt(files_.cert), key_time = ModifiedAt(files_.key);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (Same(cert_time, cert_time_) && Same(key_time, key_time_)) return false;
  }
  auto loaded = LoadPair(files_);
  if (!loaded.ok()) {
    // Kept: the files may be half written; the next look tries again.
    MINK_LOG_WARN("tls", "the certificate files changed but do not load, the old certificate is "
                  "served: {}", loaded.status().ToString());
    return false;
  }
  std::shared_ptr<const Pair> pair = std::move(*loaded);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = pair;
    cert_time_ = cert_time;
    key_time_ = key_time;
  }
  {
    std::lock_guard<std::mutex> lock(mirror_mutex_);  // a handshake and the thread may both load
    if (Status s = WriteMirrorLocked(*pair); !s.ok()) {
      MINK_LOG_WARN("tls", "the copy of the renewed certificate for gRPC: {}", s.ToString());
    }
  }
  MINK_LOG_INFO("tls", "serving the certificate of {} again, read anew (SHA-256 {})", files_.cert,
                Fingerprint());
  return true;
}

std::string CertificateReloader::Fingerprint() const {
  std::shared_ptr<const Pair> pair;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pair = current_;
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (X509_digest(pair->leaf, EVP_sha256(), digest, &length) != 1) return "";
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

}  // namespace mink::tls
