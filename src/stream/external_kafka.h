#pragma once
// A Kafka outside this Mink cluster, through librdkafka (decision 0014): a source whose
// positions are the topic's partition offsets ("p0", "p1", ...), read again exactly from any
// of them, so a pipeline over it is exactly-once into Mink tables like one over a Mink topic; and
// a sink that produces each row as a JSON record with an idempotent producer and waits for every
// acknowledgement before the epoch commits: at least once (a repeated epoch sends its records
// again; exactly-once would need Kafka transactions, which the sink does not use, so a sink that
// asks for it is refused at CREATE).
//
// Not thread-safe; one pipeline owns each.

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "stream/output_writer.h"
#include "stream/pipeline_input.h"

namespace mink::stream {

// The records of `topic` on the Kafka at `bootstrap` (librdkafka's bootstrap.servers), decoded
// by `records`. `from_latest`: a new pipeline starts at the partitions' ends.
Result<std::unique_ptr<PipelineInput>> MakeExternalKafkaInput(const std::string& bootstrap, const std::string& topic,
                                                              JsonRecords records, bool from_latest);

// Writes rows laid out as `layout` as JSON records to `topic` on the Kafka at `bootstrap`.
Result<std::unique_ptr<RowWriter>> MakeExternalKafkaWriter(const std::string& bootstrap, const std::string& topic,
                                                           OutputLayout layout, const Clock* clock);

}  // namespace mink::stream
