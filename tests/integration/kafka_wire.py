"""Single Kafka requests on a socket, encoded and parsed by kafka-python 2.0.2's protocol classes
(Debian's python3-kafka), for what no client API sends on its own: a Produce to a partition the
client's metadata does not have, batches with chosen producer sequences, DeleteRecords and
InitProducerId (which kafka-python 2.0.2 has no classes for: they are declared here from the
published message layouts, with kafka-python's types).

    wire = Wire("127.0.0.1:9092")
    response = wire.send(ProduceRequest[7](...))   # the decoded response
"""

import socket
import struct
import time

from kafka.protocol.api import Request, RequestHeader, Response
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.offset import OffsetRequest
from kafka.protocol.produce import ProduceRequest
from kafka.protocol.types import Array, Int16, Int32, Int64, Schema, String
from kafka.record.default_records import DefaultRecordBatchBuilder

__all__ = ["Wire", "RequestHeader", "FetchRequest", "MetadataRequest", "OffsetRequest", "ProduceRequest",
           "DeleteRecordsRequest_v0", "InitProducerIdRequest_v0", "record_batch"]


class DeleteRecordsResponse_v0(Response):
    API_KEY = 21
    API_VERSION = 0
    SCHEMA = Schema(
        ("throttle_time_ms", Int32),
        ("topics", Array(
            ("name", String("utf-8")),
            ("partitions", Array(
                ("partition_index", Int32),
                ("low_watermark", Int64),
                ("error_code", Int16))))))


class DeleteRecordsRequest_v0(Request):
    API_KEY = 21
    API_VERSION = 0
    RESPONSE_TYPE = DeleteRecordsResponse_v0
    SCHEMA = Schema(
        ("topics", Array(
            ("name", String("utf-8")),
            ("partitions", Array(
                ("partition_index", Int32),
                ("offset", Int64))))),
        ("timeout_ms", Int32))


class InitProducerIdResponse_v0(Response):
    API_KEY = 22
    API_VERSION = 0
    SCHEMA = Schema(
        ("throttle_time_ms", Int32),
        ("error_code", Int16),
        ("producer_id", Int64),
        ("producer_epoch", Int16))


class InitProducerIdRequest_v0(Request):
    API_KEY = 22
    API_VERSION = 0
    RESPONSE_TYPE = InitProducerIdResponse_v0
    SCHEMA = Schema(
        ("transactional_id", String("utf-8")),
        ("transaction_timeout_ms", Int32))


def record_batch(values, producer_id=-1, producer_epoch=-1, base_sequence=-1, timestamp_ms=None):
    """A magic-2 batch of records with these values (bytes), no keys, as kafka-python builds it."""
    builder = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False,
                                        producer_id=producer_id, producer_epoch=producer_epoch,
                                        base_sequence=base_sequence, batch_size=1 << 30)
    ts = int(time.time() * 1000) if timestamp_ms is None else timestamp_ms
    for i, value in enumerate(values):
        builder.append(i, timestamp=ts, key=None, value=value, headers=[])
    return bytes(builder.build())


class Wire:
    """One connection; requests one at a time."""

    def __init__(self, broker, timeout=15):
        host, port = broker.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.correlation_id = 0

    def send(self, request):
        self.correlation_id += 1
        # kafka-python's encode() holds its struct weakly: keep the header alive while it runs.
        header_struct = RequestHeader(request, correlation_id=self.correlation_id,
                                      client_id="mink-wire-test")
        header = header_struct.encode()
        body = request.encode()
        self.sock.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        size = struct.unpack(">i", self._read(4))[0]
        frame = self._read(size)
        correlation_id = struct.unpack(">i", frame[:4])[0]
        if correlation_id != self.correlation_id:
            raise RuntimeError(f"response for correlation id {correlation_id}, "
                               f"expected {self.correlation_id}")
        return request.RESPONSE_TYPE.decode(frame[4:])

    def closed_by_peer(self, seconds=5):
        """Whether the node closes the connection within `seconds` (reads until EOF)."""
        self.sock.settimeout(seconds)
        try:
            while self.sock.recv(65536):
                pass
            return True
        except socket.timeout:
            return False
        except OSError:  # reset
            return True

    def _read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("the node closed the connection")
            out += chunk
        return out

    def close(self):
        self.sock.close()
