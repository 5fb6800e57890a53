#include "kafka/protocol/sasl.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void HandshakeRequestFields(IO& io, M& m) {
  io.String("mechanism", m.mechanism);
}

template <class IO, class M>
void HandshakeResponseFields(IO& io, M& m) {
  io.Int16("error_code", m.error_code);
  io.Array("mechanisms", m.mechanisms, internal::StringElement(io));
}

template <class IO, class M>
void AuthenticateRequestFields(IO& io, M& m) {
  io.Bytes("auth_bytes", m.auth_bytes);
  io.Tags();
}

template <class IO, class M>
void AuthenticateResponseFields(IO& io, M& m) {
  io.Int16("error_code", m.error_code);
  io.NullableString("error_message", m.error_message);
  io.Bytes("auth_bytes", m.auth_bytes);
  if (io.version() >= 1) io.Int64("session_lifetime_ms", m.session_lifetime_ms);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(SaslHandshakeRequest, HandshakeRequestFields)
MINK_KAFKA_DEFINE_CODEC(SaslHandshakeResponse, HandshakeResponseFields)
MINK_KAFKA_DEFINE_CODEC(SaslAuthenticateRequest, AuthenticateRequestFields)
MINK_KAFKA_DEFINE_CODEC(SaslAuthenticateResponse, AuthenticateResponseFields)

SaslHandshakeResponse ErrorResponse(const SaslHandshakeRequest&, int16_t, ErrorCode code) {
  SaslHandshakeResponse r;
  r.error_code = ToWire(code);
  return r;
}

SaslAuthenticateResponse ErrorResponse(const SaslAuthenticateRequest&, int16_t, ErrorCode code) {
  SaslAuthenticateResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
