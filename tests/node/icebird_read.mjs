#!/usr/bin/env node
// Reads a Mink lake table with icebird (an Iceberg reader Mink's authors did not write) and prints
// its rows, one JSON object per line, with the keys sorted.
//
//   node icebird_read.mjs TABLE_DIR [METADATA_FILE]
//
// TABLE_DIR is the table's location on the file system (the warehouse of a node on the embedded
// default). METADATA_FILE names the metadata file in TABLE_DIR/metadata to read; without it,
// icebird reads the one version-hint.text names (Mink's tiering writes one; tables committed
// through the REST catalog have none). icebird fetches everything over HTTP, so the directory is served by a small HTTP server
// here that answers Range requests (hyparquet reads the Parquet footers and column chunks in
// ranges); the file:// paths that Mink's metadata and manifests name are rewritten to that
// server's URLs. Values print as JSON: 64-bit integers as numbers when they are safe integers.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { icebergRead } from 'icebird';

const tableDir = path.resolve(process.argv[2] ?? '');
const metadataFileName = process.argv[3] ? path.basename(process.argv[3]) : undefined;
if (!process.argv[2] || !fs.existsSync(path.join(tableDir, 'metadata'))) {
  console.error('usage: node icebird_read.mjs TABLE_DIR [METADATA_FILE] (a directory with metadata/)');
  process.exit(2);
}

let rangeRequests = 0;
const server = http.createServer((req, res) => {
  const file = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) {
      res.writeHead(404);
      res.end();
      return;
    }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range) {
      res.writeHead(200, { 'Content-Length': st.size });
      if (req.method === 'HEAD') res.end(); else fs.createReadStream(file).pipe(res);
      return;
    }
    rangeRequests++;
    const start = Number(range[1]);
    const end = range[2] === '' ? st.size - 1 : Math.min(Number(range[2]), st.size - 1);
    res.writeHead(206, {
      'Content-Length': end - start + 1,
      'Content-Range': `bytes ${start}-${end}/${st.size}`,
    });
    fs.createReadStream(file, { start, end }).pipe(res);
  });
});

function jsonValue(v) {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (v === undefined) return null;
  return v;
}

server.listen(0, '127.0.0.1', async () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const realFetch = globalThis.fetch;
  globalThis.fetch = (url, init) => {
    const s = String(url);
    return realFetch(s.startsWith('file://') ? base + s.slice('file://'.length) : s, init);
  };
  try {
    const rows = await icebergRead({ tableUrl: base + tableDir, metadataFileName });
    for (const row of rows) {
      const out = {};
      for (const key of Object.keys(row).sort()) out[key] = jsonValue(row[key]);
      console.log(JSON.stringify(out));
    }
    console.error(`icebird: ${rows.length} rows, ${rangeRequests} range requests`);
  } catch (e) {
    console.error(`icebird: ${e.stack ?? e}`);
    process.exitCode = 1;
  } finally {
    server.close();
  }
});
