# Drives kafka-python (Debian python3-kafka 2.0.2) against the capture broker of
# client_capture_test.cc: bootstrap (ApiVersions v0 and version inference), then a metadata
# request for the topic list. Prints the inferred broker version and the topics.
import sys

import kafka

consumer = kafka.KafkaConsumer(
    bootstrap_servers="127.0.0.1:" + sys.argv[1],
    api_version_auto_timeout_ms=2000,
    request_timeout_ms=15000,
    session_timeout_ms=10000,
)
print("api_version", consumer.config["api_version"])
print("topics", sorted(consumer.topics()))
consumer.close()
