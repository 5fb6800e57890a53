#!/usr/bin/env node
// Arrow IPC interop driver for src/arrow_format/tests/js_interop_test.cc, using the real Arrow JS
// implementation (apache-arrow).
//
//   node arrow_interop.js read  FILE [--lz4]   read an IPC stream, print its schema and rows
//   node arrow_interop.js write FILE [--lz4]   write a stream with every type Mink supports (with
//                                              nulls, two batches of sliced columns, Dictionary<Utf8>
//                                              columns incl. a delta dictionary), print the same
//                                              JSON lines for what was written
//
// Output: one JSON object per line. First {"schema": [{"name", "type", "nullable"}, ...]} with
// Arrow JS type strings, then {"row": {column: value, ...}} per row. Values are read from the raw
// buffers (not the JS convenience getters) in a canonical form that the C++ test reproduces:
// 64-bit integers, time64 and timestamps as decimal strings; decimals as
// {"unscaled": "<integer>", "scale": s}; binary as lowercase hex; date32 as days; lists as arrays;
// maps as arrays of [key, value]; structs as objects.
//
// --lz4 registers an LZ4 frame codec written below from the LZ4 frame and block format
// specifications (Arrow JS ships no codecs), independent of the liblz4 that Mink uses.

'use strict';

const fs = require('fs');
const path = require('path');
const arrow = require(path.join(__dirname, 'node_modules', 'apache-arrow'));

const {
  Type, Field, Schema, Table, RecordBatch, makeData, vectorFromArray, RecordBatchStreamWriter,
  tableFromIPC, compressionRegistry, CompressionType,
} = arrow;

// ---------------------------------------------------------------------------------------------
// xxHash32 for inputs shorter than 16 bytes (the LZ4 frame header checksum covers 2-14 bytes).

const P1 = 0x9E3779B1, P2 = 0x85EBCA77, P3 = 0xC2B2AE3D, P4 = 0x27D4EB2F, P5 = 0x165667B1;
const rotl = (x, r) => ((x << r) | (x >>> (32 - r))) >>> 0;

function xxh32Short(bytes) {
  if (bytes.length >= 16) throw new Error('xxh32Short: input too long');
  let h = (P5 + bytes.length) >>> 0;
  let i = 0;
  for (; i + 4 <= bytes.length; i += 4) {
    const word = (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24)) >>> 0;
    h = (h + Math.imul(word, P3)) >>> 0;
    h = Math.imul(rotl(h, 17), P4) >>> 0;
  }
  for (; i < bytes.length; ++i) {
    h = (h + Math.imul(bytes[i], P5)) >>> 0;
    h = Math.imul(rotl(h, 11), P1) >>> 0;
  }
  h ^= h >>> 15; h = Math.imul(h, P2) >>> 0;
  h ^= h >>> 13; h = Math.imul(h, P3) >>> 0;
  h ^= h >>> 16;
  return h >>> 0;
}

// ---------------------------------------------------------------------------------------------
// LZ4 frame codec.

class ByteSink {
  constructor(capacity) { this.buf = new Uint8Array(Math.max(capacity, 64)); this.len = 0; }
  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const grown = new Uint8Array(cap);
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
  push(b) { this.reserve(1); this.buf[this.len++] = b; }
  pushAll(bytes) { this.reserve(bytes.length); this.buf.set(bytes, this.len); this.len += bytes.length; }
  result() { return this.buf.slice(0, this.len); }
}

function lz4DecodeBlock(src, out) {
  let ip = 0;
  while (ip < src.length) {
    const token = src[ip++];
    let literals = token >> 4;
    if (literals === 15) {
      let b;
      do { b = src[ip++]; literals += b; } while (b === 255);
    }
    if (ip + literals > src.length) throw new Error('lz4: literals overrun the block');
    out.pushAll(src.subarray(ip, ip + literals));
    ip += literals;
    if (ip >= src.length) break;  // the last sequence has literals only
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    if (offset === 0 || offset > out.len) throw new Error('lz4: bad match offset');
    let match = token & 15;
    if (match === 15) {
      let b;
      do { b = src[ip++]; match += b; } while (b === 255);
    }
    match += 4;
    out.reserve(match);
    for (let k = 0; k < match; ++k) { out.buf[out.len] = out.buf[out.len - offset]; out.len++; }
  }
}

function lz4FrameDecode(frame) {
  const u32 = (p) => (frame[p] | (frame[p + 1] << 8) | (frame[p + 2] << 16) | (frame[p + 3] << 24)) >>> 0;
  if (u32(0) !== 0x184D2204) throw new Error('lz4: bad frame magic');
  const flg = frame[4];
  if ((flg >> 6) !== 1) throw new Error('lz4: bad frame version');
  const blockChecksum = (flg >> 4) & 1, contentSize = (flg >> 3) & 1;
  const contentChecksum = (flg >> 2) & 1, dictId = flg & 1;
  let p = 6 + (contentSize ? 8 : 0) + (dictId ? 4 : 0);
  const hc = (xxh32Short(frame.subarray(4, p)) >>> 8) & 0xFF;
  if (frame[p] !== hc) throw new Error('lz4: bad frame header checksum');
  p += 1;
  const out = new ByteSink(frame.length * 4);
  for (;;) {
    const size = u32(p);
    p += 4;
    if (size === 0) break;  // end mark
    const n = size & 0x7FFFFFFF;
    const block = frame.subarray(p, p + n);
    if ((size & 0x80000000) !== 0) out.pushAll(block); else lz4DecodeBlock(block, out);
    p += n + (blockChecksum ? 4 : 0);
  }
  p += contentChecksum ? 4 : 0;
  if (p !== frame.length) throw new Error('lz4: trailing bytes after the frame');
  return out.result();
}

// Greedy LZ4 block compressor: hash of 4-byte sequences, 64 KiB window. Per the block format,
// the last 5 bytes are literals and no match starts within the last 12 bytes.
function lz4EncodeBlock(src, out) {
  const table = new Int32Array(1 << 16).fill(-1);
  const read32 = (p) => (src[p] | (src[p + 1] << 8) | (src[p + 2] << 16) | (src[p + 3] << 24)) >>> 0;
  const hash = (v) => Math.imul(v, 2654435761) >>> 16;
  const writeLength = (n) => { for (; n >= 255; n -= 255) out.push(255); out.push(n); };
  const emit = (litStart, litEnd, offset, matchLen) => {
    const lit = litEnd - litStart;
    const m = matchLen > 0 ? matchLen - 4 : 0;
    out.push(((lit >= 15 ? 15 : lit) << 4) | (matchLen > 0 ? (m >= 15 ? 15 : m) : 0));
    if (lit >= 15) writeLength(lit - 15);
    out.pushAll(src.subarray(litStart, litEnd));
    if (matchLen > 0) {
      out.push(offset & 0xFF); out.push(offset >> 8);
      if (m >= 15) writeLength(m - 15);
    }
  };
  let anchor = 0;
  let i = 0;
  const limit = src.length - 12;
  while (i < limit) {
    const seq = read32(i);
    const h = hash(seq);
    const ref = table[h];
    table[h] = i;
    if (ref >= 0 && i - ref < 65536 && read32(ref) === seq) {
      let len = 4;
      while (i + len < src.length - 5 && src[ref + len] === src[i + len]) len++;
      emit(anchor, i, i - ref, len);
      i += len;
      anchor = i;
    } else {
      i++;
    }
  }
  emit(anchor, src.length, 0, 0);
}

function lz4FrameEncode(src) {
  const out = new ByteSink(src.length + 64);
  const header = new Uint8Array([0x60, 0x70]);  // version 01, independent blocks; 4 MiB blocks
  out.pushAll([0x04, 0x22, 0x4D, 0x18]);
  out.pushAll(header);
  out.push((xxh32Short(header) >>> 8) & 0xFF);
  const kBlock = 4 << 20;
  for (let start = 0; start < src.length; start += kBlock) {
    const chunk = src.subarray(start, Math.min(src.length, start + kBlock));
    const block = new ByteSink(chunk.length + 16);
    lz4EncodeBlock(chunk, block);
    const stored = block.len >= chunk.length;
    const bytes = stored ? chunk : block.result();
    const size = (bytes.length | (stored ? 0x80000000 : 0)) >>> 0;
    out.pushAll([size & 0xFF, (size >>> 8) & 0xFF, (size >>> 16) & 0xFF, size >>> 24]);
    out.pushAll(bytes);
  }
  out.pushAll([0, 0, 0, 0]);
  return out.result();
}

function registerLz4() {
  compressionRegistry.set(CompressionType.LZ4_FRAME, {
    encode: (data) => lz4FrameEncode(data),
    decode: (data) => lz4FrameDecode(data),
  });
}

// ---------------------------------------------------------------------------------------------
// Canonical JSON of values, read from the raw buffers.

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const utf8 = new TextDecoder('utf-8');

function isValid(data, i) {
  if (data.typeId === Type.Null) return false;
  if (!data.nullBitmap || data.nullBitmap.length === 0 || data.nullCount === 0) return true;
  const idx = data.offset + i;
  return ((data.nullBitmap[idx >> 3] >> (idx & 7)) & 1) === 1;
}

function decimalToString(words, at) {
  let v = 0n;
  for (let k = 3; k >= 0; --k) v = (v << 32n) | BigInt(words[at + k]);
  if (v >= (1n << 127n)) v -= (1n << 128n);
  return v.toString();
}

// Arrow JS slices (Data.slice) keep `offset` for the validity and boolean bitmaps but cut value
// and offset buffers (and struct children) to start at the slice, so element i of those is at i.
function valueAt(data, i) {
  if (!isValid(data, i)) return null;
  const type = data.type;
  switch (type.typeId) {
    case Type.Bool: {
      const bit = data.offset + i;
      return ((data.values[bit >> 3] >> (bit & 7)) & 1) === 1;
    }
    case Type.Int: {
      const v = data.values[i];
      return type.bitWidth === 64 ? v.toString() : Number(v);
    }
    case Type.Float: return Number(data.values[i]);
    case Type.Decimal: return { unscaled: decimalToString(data.values, i * 4), scale: type.scale };
    case Type.Utf8:
    case Type.Binary: {
      const bytes = data.values.subarray(data.valueOffsets[i], data.valueOffsets[i + 1]);
      return type.typeId === Type.Utf8 ? utf8.decode(bytes) : hex(bytes);
    }
    case Type.Date: return Number(data.values[i]);
    case Type.Time: return type.bitWidth === 64 ? data.values[i].toString() : Number(data.values[i]);
    case Type.Timestamp: return data.values[i].toString();
    case Type.List: {
      const child = data.children[0];
      const out = [];
      for (let j = data.valueOffsets[i]; j < data.valueOffsets[i + 1]; ++j) out.push(valueAt(child, j));
      return out;
    }
    case Type.Map: {
      const entries = data.children[0];
      const out = [];
      for (let j = data.valueOffsets[i]; j < data.valueOffsets[i + 1]; ++j) {
        out.push([valueAt(entries.children[0], j), valueAt(entries.children[1], j)]);
      }
      return out;
    }
    case Type.Struct: {
      const out = {};
      type.children.forEach((f, k) => { out[f.name] = valueAt(data.children[k], i); });
      return out;
    }
    case Type.Dictionary: {
      const value = data.dictionary.get(Number(data.values[i]));
      if (value === null) return null;
      return type.dictionary.typeId === Type.Utf8 ? value : hex(value);
    }
    default: throw new Error(`no JSON form for type ${type}`);
  }
}

function printTable(table) {
  const schema = table.schema.fields.map((f) => ({ name: f.name, type: String(f.type), nullable: f.nullable }));
  const lines = [JSON.stringify({ schema })];
  for (const batch of table.batches) {
    for (let r = 0; r < batch.numRows; ++r) {
      const row = {};
      table.schema.fields.forEach((f, k) => { row[f.name] = valueAt(batch.data.children[k], r); });
      lines.push(JSON.stringify({ row }));
    }
  }
  process.stdout.write(lines.join('\n') + '\n');
}

// ---------------------------------------------------------------------------------------------
// A table of every type Mink supports, built from explicit buffers.

const N = 17;
const isNull = (r, k) => (r * 7 + k) % 5 === 0;

function bitmap(k, n = N) {
  const bits = new Uint8Array(Math.ceil(n / 8));
  let nulls = 0;
  for (let r = 0; r < n; ++r) {
    if (isNull(r, k)) nulls++; else bits[r >> 3] |= 1 << (r & 7);
  }
  return { nullBitmap: bits, nullCount: nulls };
}

function primitive(k, type, ArrayType, valueOf) {
  const values = new ArrayType(N);
  const zero = ArrayType === BigInt64Array || ArrayType === BigUint64Array ? 0n : 0;
  for (let r = 0; r < N; ++r) values[r] = isNull(r, k) ? zero : valueOf(r);
  return makeData({ type, length: N, data: values, ...bitmap(k) });
}

function strings(values) {
  const offsets = new Int32Array(values.length + 1);
  const chunks = [];
  let pos = 0;
  values.forEach((v, r) => {
    const bytes = v === null ? new Uint8Array(0) : (typeof v === 'string' ? Buffer.from(v, 'utf8') : v);
    chunks.push(bytes);
    pos += bytes.length;
    offsets[r + 1] = pos;
  });
  const data = new Uint8Array(pos);
  let at = 0;
  for (const c of chunks) { data.set(c, at); at += c.length; }
  return { valueOffsets: offsets, data };
}

function buildTable() {
  const fields = [];
  const columns = [];
  let k = 0;
  const add = (name, type, nullable, data) => { fields.push(new Field(name, type, nullable)); columns.push(data); k++; };

  add('null_col', new arrow.Null(), true, makeData({ type: new arrow.Null(), length: N, nullCount: N }));
  {
    const bits = new Uint8Array(Math.ceil(N / 8));
    for (let r = 0; r < N; ++r) if (!isNull(r, k) && r % 3 === 0) bits[r >> 3] |= 1 << (r & 7);
    add('bool_col', new arrow.Bool(), true, makeData({ type: new arrow.Bool(), length: N, data: bits, ...bitmap(k) }));
  }
  add('i8', new arrow.Int8(), true, primitive(k, new arrow.Int8(), Int8Array, (r) => (r * 19) % 256 - 128));
  add('i16', new arrow.Int16(), true, primitive(k, new arrow.Int16(), Int16Array, (r) => r * 1999 - 32768));
  add('i32', new arrow.Int32(), true, primitive(k, new arrow.Int32(), Int32Array, (r) => r === 1 ? 2147483647 : r * -123457));
  add('i64', new arrow.Int64(), true, primitive(k, new arrow.Int64(), BigInt64Array,
    (r) => r === 1 ? 9223372036854775807n : r === 2 ? -9223372036854775808n : BigInt(r) * -1000000000007n));
  add('u8', new arrow.Uint8(), true, primitive(k, new arrow.Uint8(), Uint8Array, (r) => (r * 37) % 256));
  add('u16', new arrow.Uint16(), true, primitive(k, new arrow.Uint16(), Uint16Array, (r) => (r * 4099) % 65536));
  add('u32', new arrow.Uint32(), true, primitive(k, new arrow.Uint32(), Uint32Array, (r) => r === 1 ? 4294967295 : r * 250000001));
  add('u64', new arrow.Uint64(), true, primitive(k, new arrow.Uint64(), BigUint64Array,
    (r) => r === 1 ? 18446744073709551615n : BigInt(r) * 1000000000039n));
  add('f32', new arrow.Float32(), true, primitive(k, new arrow.Float32(), Float32Array, (r) => r * 0.75 - 3.5));
  add('f64', new arrow.Float64(), true, primitive(k, new arrow.Float64(), Float64Array, (r) => r === 3 ? 1e300 : r * -1.0625 + 0.1));
  {
    const words = new Uint32Array(N * 4);
    for (let r = 0; r < N; ++r) {
      if (isNull(r, k)) continue;
      let v = r === 1 ? 10n ** 20n - 1n : r === 2 ? -(10n ** 20n) + 1n : BigInt(r) * -123456789013n + 5n;
      if (v < 0n) v += 1n << 128n;
      for (let w = 0; w < 4; ++w) { words[r * 4 + w] = Number(v & 0xFFFFFFFFn); v >>= 32n; }
    }
    const type = new arrow.Decimal(3, 20, 128);
    add('dec', type, true, makeData({ type, length: N, data: words, ...bitmap(k) }));
  }
  {
    const values = [];
    for (let r = 0; r < N; ++r) values.push(isNull(r, k) ? null : r % 6 === 2 ? '' : `js-${r}${r % 4 === 1 ? '-é✓' : ''}`);
    add('utf8', new arrow.Utf8(), true, makeData({ type: new arrow.Utf8(), length: N, ...strings(values), ...bitmap(k) }));
  }
  {
    const values = [];
    for (let r = 0; r < N; ++r) values.push(isNull(r, k) ? null : r % 5 === 1 ? `built-${r}` : `b${r}`);
    add('utf8_built', new arrow.Utf8(), true, vectorFromArray(values, new arrow.Utf8()).data[0]);
  }
  {
    const values = [];
    for (let r = 0; r < N; ++r) values.push(isNull(r, k) ? null : new Uint8Array([r, 0, 255, (r * 3) & 255].slice(0, r % 5)));
    add('bin', new arrow.Binary(), true, makeData({ type: new arrow.Binary(), length: N, ...strings(values), ...bitmap(k) }));
  }
  add('date', new arrow.DateDay(), true, primitive(k, new arrow.DateDay(), Int32Array, (r) => r * 1000 - 20000));
  add('time_s', new arrow.TimeSecond(), true, primitive(k, new arrow.TimeSecond(), Int32Array, (r) => (r * 4001) % 86400));
  add('time_ms', new arrow.TimeMillisecond(), true, primitive(k, new arrow.TimeMillisecond(), Int32Array, (r) => (r * 5000011) % 86400000));
  add('time_us', new arrow.TimeMicrosecond(), true, primitive(k, new arrow.TimeMicrosecond(), BigInt64Array, (r) => BigInt(r) * 5000000011n % 86400000000n));
  add('time_ns', new arrow.TimeNanosecond(), true, primitive(k, new arrow.TimeNanosecond(), BigInt64Array, (r) => BigInt(r) * 5000000000011n % 86400000000000n));
  add('ts_s', new arrow.TimestampSecond(), true, primitive(k, new arrow.TimestampSecond(), BigInt64Array, (r) => BigInt(r) * 86399n - 1000000n));
  add('ts_ms_utc', new arrow.TimestampMillisecond('UTC'), true, primitive(k, new arrow.TimestampMillisecond('UTC'), BigInt64Array, (r) => 1700000000000n + BigInt(r) * 1001n));
  add('ts_us_tz', new arrow.TimestampMicrosecond('+07:30'), true, primitive(k, new arrow.TimestampMicrosecond('+07:30'), BigInt64Array, (r) => BigInt(r) * -3600000001n));
  add('ts_ns', new arrow.TimestampNanosecond(), true, primitive(k, new arrow.TimestampNanosecond(), BigInt64Array, (r) => 1700000000000000000n + BigInt(r)));
  {
    // list<int32> with null items.
    const offsets = new Int32Array(N + 1);
    const items = [];
    const itemNulls = [];
    for (let r = 0; r < N; ++r) {
      if (!isNull(r, k)) for (let j = 0; j < r % 4; ++j) { items.push(j * r - 7); itemNulls.push((j + r) % 3 === 0); }
      offsets[r + 1] = items.length;
    }
    const itemBits = new Uint8Array(Math.ceil(items.length / 8) || 1);
    itemNulls.forEach((isN, j) => { if (!isN) itemBits[j >> 3] |= 1 << (j & 7); });
    const child = makeData({ type: new arrow.Int32(), length: items.length, data: Int32Array.from(items),
      nullBitmap: itemBits, nullCount: itemNulls.filter((x) => x).length });
    const type = new arrow.List(new Field('item', new arrow.Int32(), true));
    add('list_i32', type, true, makeData({ type, length: N, valueOffsets: offsets, child, ...bitmap(k) }));
  }
  {
    // map<utf8, int64>: entries r % 3, value null for the second entry.
    const offsets = new Int32Array(N + 1);
    const keys = [];
    const vals = [];
    for (let r = 0; r < N; ++r) {
      if (!isNull(r, k)) for (let j = 0; j < r % 3; ++j) { keys.push(`k${j}-${r}`); vals.push(j === 1 ? null : BigInt(j * r) - 2n); }
      offsets[r + 1] = keys.length;
    }
    const keyData = makeData({ type: new arrow.Utf8(), length: keys.length, ...strings(keys) });
    const valBits = new Uint8Array(Math.ceil(vals.length / 8) || 1);
    vals.forEach((v, j) => { if (v !== null) valBits[j >> 3] |= 1 << (j & 7); });
    const valData = makeData({ type: new arrow.Int64(), length: vals.length,
      data: BigInt64Array.from(vals.map((v) => v === null ? 0n : v)), nullBitmap: valBits,
      nullCount: vals.filter((v) => v === null).length });
    const entryType = new arrow.Struct([new Field('key', new arrow.Utf8(), false), new Field('value', new arrow.Int64(), true)]);
    const entries = makeData({ type: entryType, length: keys.length, nullCount: 0, children: [keyData, valData] });
    const type = new arrow.Map_(new Field('entries', entryType, false), false);
    add('map_str_i64', type, true, makeData({ type, length: N, valueOffsets: offsets, child: entries, ...bitmap(k) }));
  }
  {
    // struct<a: int32, b: utf8 not null, c: list<float64>>.
    const aValues = new Int32Array(N);
    const aBits = new Uint8Array(Math.ceil(N / 8));
    let aNulls = 0;
    const bValues = [];
    const cOffsets = new Int32Array(N + 1);
    const cItems = [];
    for (let r = 0; r < N; ++r) {
      if (r % 4 === 1) aNulls++; else { aBits[r >> 3] |= 1 << (r & 7); aValues[r] = r * 11; }
      bValues.push(`b${r}`);
      for (let j = 0; j < r % 2; ++j) cItems.push(r + 0.5 * j);
      cOffsets[r + 1] = cItems.length;
    }
    const aData = makeData({ type: new arrow.Int32(), length: N, data: aValues, nullBitmap: aBits, nullCount: aNulls });
    const bData = makeData({ type: new arrow.Utf8(), length: N, ...strings(bValues) });
    const cType = new arrow.List(new Field('item', new arrow.Float64(), true));
    const cChild = makeData({ type: new arrow.Float64(), length: cItems.length, data: Float64Array.from(cItems) });
    const cData = makeData({ type: cType, length: N, valueOffsets: cOffsets, child: cChild });
    const type = new arrow.Struct([new Field('a', new arrow.Int32(), true), new Field('b', new arrow.Utf8(), false), new Field('c', cType, true)]);
    add('struct_col', type, true, makeData({ type, length: N, children: [aData, bData, cData], ...bitmap(k) }));
  }
  {
    // What tableFromArrays produces for JS strings: Dictionary<Int32, Utf8>.
    const words = ['red', 'green', 'blue', 'été'];
    const values = [];
    for (let r = 0; r < N; ++r) values.push(isNull(r, k) ? null : words[(r * 3) % words.length]);
    const vector = vectorFromArray(values);
    add('dict_str', vector.type, true, vector.data[0]);
  }
  {
    const values = new BigInt64Array(N);
    for (let r = 0; r < N; ++r) values[r] = BigInt(r) - 8n;
    add('not_null_i64', new arrow.Int64(), false, makeData({ type: new arrow.Int64(), length: N, data: values }));
  }
  // Two batches of rows [0, SPLIT) and [SPLIT, N): sliced columns (non-zero offsets), plus a
  // dictionary column whose dictionary grows in the second batch (a delta DictionaryBatch).
  const dictType = new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32());
  fields.push(new Field('dict_delta', dictType, true));
  const firstWords = makeData({ type: new arrow.Utf8(), length: 3, ...strings(['north', 'south', 'east']) });
  const moreWords = makeData({ type: new arrow.Utf8(), length: 2, ...strings(['west', 'up']) });
  const dictionaries = [new arrow.Vector([firstWords]), new arrow.Vector([firstWords, moreWords])];
  const schema = new Schema(fields);
  const SPLIT = 9;
  const batches = [[0, SPLIT], [SPLIT, N]].map(([begin, end], b) => {
    const n = end - begin;
    const indices = new Int32Array(n);
    const bits = new Uint8Array(Math.ceil(n / 8));
    let nulls = 0;
    for (let r = begin; r < end; ++r) {
      if (isNull(r, k)) { nulls++; continue; }
      bits[(r - begin) >> 3] |= 1 << ((r - begin) & 7);
      indices[r - begin] = b === 0 ? r % 3 : (r * 2) % 5;
    }
    const dictData = makeData({ type: dictType, length: n, data: indices, nullBitmap: bits, nullCount: nulls, dictionary: dictionaries[b] });
    const children = columns.map((c) => c.slice(begin, n)).concat([dictData]);
    return new RecordBatch(schema, makeData({ type: new arrow.Struct(fields), length: n, nullCount: 0, children }));
  });
  return new Table(schema, batches);
}

// ---------------------------------------------------------------------------------------------

function main() {
  const [mode, file, ...flags] = process.argv.slice(2);
  const lz4 = flags.includes('--lz4');
  if (lz4) registerLz4();
  if (mode === 'read') {
    printTable(tableFromIPC(fs.readFileSync(file)));
  } else if (mode === 'write') {
    const table = buildTable();
    const writer = new RecordBatchStreamWriter(lz4 ? { compressionType: CompressionType.LZ4_FRAME } : undefined);
    writer.writeAll(table);
    fs.writeFileSync(file, writer.toUint8Array(true));
    printTable(table);
  } else {
    process.stderr.write('usage: arrow_interop.js read|write FILE [--lz4]\n');
    process.exit(2);
  }
}

main();
