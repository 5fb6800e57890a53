#include "kafka/protocol/fetch.h"

#include "kafka/protocol/codec_internal.h"

namespace mink::kafka {
namespace {

using internal::Int32Element;

template <class IO, class M>
void RequestFields(IO& io, M& m) {
  const int16_t v = io.version();
  io.Int32("replica_id", m.replica_id);
  io.Int32("max_wait_ms", m.max_wait_ms);
  io.Int32("min_bytes", m.min_bytes);
  if (v >= 3) io.Int32("max_bytes", m.max_bytes);
  if (v >= 4) io.Int8("isolation_level", m.isolation_level);
  if (v >= 7) {
    io.Int32("session_id", m.session_id);
    io.Int32("session_epoch", m.session_epoch);
  }
  io.Array("topics", m.topics, [&](auto& t) {
    io.String("topic", t.topic);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition", p.partition);
      if (v >= 9) io.Int32("current_leader_epoch", p.current_leader_epoch);
      io.Int64("fetch_offset", p.fetch_offset);
      if (v >= 12) io.Int32("last_fetched_epoch", p.last_fetched_epoch);
      if (v >= 5) io.Int64("log_start_offset", p.log_start_offset);
      io.Int32("partition_max_bytes", p.partition_max_bytes);
      io.Tags();
    });
    io.Tags();
  });
  if (v >= 7) {
    io.Array("forgotten_topics_data", m.forgotten_topics_data, [&](auto& t) {
      io.String("topic", t.topic);
      io.Array("partitions", t.partitions, Int32Element(io));
      io.Tags();
    });
  }
  if (v >= 11) io.String("rack_id", m.rack_id);
  io.Tags({{0, m.cluster_id.has_value(),
            [&](auto& s) { s.NullableString("cluster_id", m.cluster_id); }}});
}

template <class IO, class M>
void ResponseFields(IO& io, M& m) {
  const int16_t v = io.version();
  if (v >= 1) io.Int32("throttle_time_ms", m.throttle_time_ms);
  if (v >= 7) {
    io.Int16("error_code", m.error_code);
    io.Int32("session_id", m.session_id);
  }
  io.Array("responses", m.responses, [&](auto& t) {
    io.String("topic", t.topic);
    io.Array("partitions", t.partitions, [&](auto& p) {
      io.Int32("partition_index", p.partition_index);
      io.Int16("error_code", p.error_code);
      io.Int64("high_watermark", p.high_watermark);
      if (v >= 4) io.Int64("last_stable_offset", p.last_stable_offset);
      if (v >= 5) io.Int64("log_start_offset", p.log_start_offset);
      if (v >= 4) {
        io.NullableArray("aborted_transactions", p.aborted_transactions, [&](auto& a) {
          io.Int64("producer_id", a.producer_id);
          io.Int64("first_offset", a.first_offset);
          io.Tags();
        });
      }
      if (v >= 11) io.Int32("preferred_read_replica", p.preferred_read_replica);
      io.Records("records", p.records);
      io.Tags({
          {0, p.diverging_epoch.has_value(),
           [&](auto& s) {
             auto& d = Emplace(p.diverging_epoch);
             s.Int32("epoch", d.epoch);
             s.Int64("end_offset", d.end_offset);
             s.Tags();
           }},
          {1, p.current_leader.has_value(),
           [&](auto& s) {
             auto& l = Emplace(p.current_leader);
             s.Int32("leader_id", l.leader_id);
             s.Int32("leader_epoch", l.leader_epoch);
             s.Tags();
           }},
          {2, p.snapshot_id.has_value(),
           [&](auto& s) {
             auto& id = Emplace(p.snapshot_id);
             s.Int64("end_offset", id.end_offset);
             s.Int32("epoch", id.epoch);
             s.Tags();
           }},
      });
    });
    io.Tags();
  });
  io.Tags();
}

}  // namespace

MINK_KAFKA_DEFINE_CODEC(FetchRequest, RequestFields)
MINK_KAFKA_DEFINE_CODEC(FetchResponse, ResponseFields)

FetchResponse ErrorResponse(const FetchRequest& request, int16_t version, ErrorCode code) {
  FetchResponse r;
  if (version >= 7) r.error_code = ToWire(code);
  for (const auto& t : request.topics) {
    FetchResponse::Topic& topic = r.responses.emplace_back();
    topic.topic = t.topic;
    for (const auto& p : t.partitions) {
      FetchResponse::Partition& partition = topic.partitions.emplace_back();
      partition.partition_index = p.partition;
      partition.error_code = ToWire(code);
      partition.high_watermark = -1;
    }
  }
  return r;
}

}  // namespace mink::kafka
