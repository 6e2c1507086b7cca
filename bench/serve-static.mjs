#!/usr/bin/env node
// A minimal static file server, the yardstick for the app's HTML: files are
// read once and kept in memory with their gzip and brotli variants (like nginx
// gzip_static/brotli_static), so its figures measure serving, not compressing.
// Usage: node bench/serve-static.mjs DIR [--port P]; prints "listening URL".
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";

const [dir, flag, portArg] = process.argv.slice(2);
if (!dir || (flag && flag !== "--port")) {
  console.error("usage: node bench/serve-static.mjs DIR [--port P]");
  process.exit(2);
}
const root = path.resolve(dir);
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};
const files = new Map();

function load(urlPath) {
  const rel = decodeURIComponent(urlPath.split("?")[0]).replace(/\/$/, "/index.html");
  const file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root)) return null;
  if (files.has(file)) return files.get(file);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  let entry = null;
  if (stat?.isFile()) {
    const body = fs.readFileSync(file);
    entry = {
      body,
      type: TYPES[path.extname(file)] ?? "application/octet-stream",
      etag: `"${stat.size.toString(16)}-${stat.mtimeMs.toString(16)}"`,
      br: zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
      gzip: zlib.gzipSync(body, { level: 9 }),
    };
  }
  files.set(file, entry);
  return entry;
}

const server = http.createServer((req, res) => {
  const entry = req.method === "GET" || req.method === "HEAD" ? load(req.url ?? "/") : null;
  if (!entry) {
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    return;
  }
  const headers = {
    "content-type": entry.type,
    etag: entry.etag,
    vary: "Accept-Encoding",
    "cache-control": "no-cache",
  };
  const accepted = req.headers["accept-encoding"] ?? "";
  let body = entry.body;
  for (const encoding of ["br", "gzip"]) {
    if (new RegExp(`\\b${encoding}\\b`).test(accepted)) {
      body = entry[encoding];
      headers["content-encoding"] = encoding;
      break;
    }
  }
  headers["content-length"] = body.length;
  res.writeHead(200, headers).end(req.method === "HEAD" ? undefined : body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(portArg ?? 0), "127.0.0.1", () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
