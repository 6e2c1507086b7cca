// One HTTP exchange as it is on the wire (node:http, no decoding, no agent):
// the status, the headers and the body's bytes exactly as the server sent them.
import { request } from "node:http";
import { brotliDecompressSync, gunzipSync } from "node:zlib";

export type Raw = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

export function raw(
  url: string,
  {
    method = "GET",
    headers = {},
    body,
    localAddress,
  }: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** A header's value as one string ("" when absent). */
export const header = (response: Raw, name: string) => String(response.headers[name] ?? "");

/** The body as text, decoded from gzip or brotli when the server encoded it. */
export function decode(response: Raw): string {
  const encoding = header(response, "content-encoding");
  if (encoding === "gzip") return gunzipSync(response.body).toString("utf8");
  if (encoding === "br") return brotliDecompressSync(response.body).toString("utf8");
  return response.body.toString("utf8");
}
