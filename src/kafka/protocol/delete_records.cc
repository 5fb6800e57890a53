#include "kafka/protocol/delete_records.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int64("offset", p.offset);
      io.Tags();
    });
    io.Tags();
  });
  io.Int32("timeout_ms", m.timeout_ms);
  io.Tags();
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  io.Int32("throttle_time_ms", m.throttle_time_ms);
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("name", t.name);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int64("low_watermark", p.low_watermark);
      io.Int16("error_code", p.error_code);
      io.Tags();
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(DeleteRecordsRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(DeleteRecordsResponse, ResponseFields)

DeleteRecordsResponse ErrorResponse(const DeleteRecordsRequest& request, int16_t,
                                    ErrorCode code) {
  DeleteRecordsResponse r;
  for (const auto& t : request.topics) {
    DeleteRecordsResponse::Topic topic{t.name, {}};
    for (const auto& p : t.partitions) topic.partitions.push_back({p.partition_index, -1, ToWire(code)});
    r.topics.push_back(std::move(topic));
  }
  return r;
}

}  // namespace mink::kafka
