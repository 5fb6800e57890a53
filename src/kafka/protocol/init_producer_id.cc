#include "kafka/protocol/init_producer_id.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.NullableString("transactional_id", m.transactional_id);
  io.Int32("transaction_timeout_ms", m.transaction_timeout_ms);
  if (io.version() >= 3) {
    io.Int64("producer_id", m.producer_id);
    io.Int16("producer_epoch", m.producer_epoch);
  }
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Int16("error_code", m.error_code);
  io.Int64("producer_id", m.producer_id);
  io.Int16("producer_epoch", m.producer_epoch);
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(InitProducerIdRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(InitProducerIdResponse, ResponseFields)

InitProducerIdResponse ErrorResponse(const InitProducerIdRequest&, int16_t, ErrorCode code) {
  InitProducerIdResponse r;
  r.error_code = ToWire(code);
  return r;
}

}  // namespace mink::kafka
