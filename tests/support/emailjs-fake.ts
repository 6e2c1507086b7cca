// A real HTTP fake of the EmailJS API on 127.0.0.1, so tests exercise the
// real network path. It records every send request and answers as told.
// Vitest drives it in-process; Playwright workers (other processes) drive it
// through the /__fake/* control endpoints. Tests running in parallel against
// one fake each put a unique marker in their message and set the answer for
// that marker only, so they never see each other's modes or requests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeMode =
  | { kind: "status"; status: number; body?: string; delayMs?: number; headers?: Record<string, string> }
  /** Accepts the request and never answers. */
  | { kind: "hang" }
  /** Reads the whole request, then closes the connection without an answer. */
  | { kind: "drop" }
  /** The status and headers at once, then `bytes` of body over `overMs` (a slow or a huge answer). */
  | { kind: "streamed"; status: number; bytes: number; overMs: number };

export type RecordedRequest = {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: unknown;
  /** Arrival time (performance.now() of the fake's process). */
  at: number;
  /** The status it was answered with, once answered (none for a hang, a drop or a stream). */
  status?: number;
};

export type EmailJsFake = {
  /** Base URL to use as EMAILJS_API_URL. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  /**
   * The answer for requests whose body contains `match`; without `match`,
   * for every request that no marker and no queued answer covers.
   */
  setMode(mode: FakeMode, match?: string): void;
  /** One-shot answers used in order before the mode, e.g. two 503s then the mode. */
  queue(...modes: FakeMode[]): void;
  /** As EmailJS documents: a request less than 1/`perSecond` s after the one before is answered 429; null lifts it. */
  limitRate(perSecond: number | null): void;
  /** Back to 200 "OK", no markers, empty queue, no rate limit, no recorded requests. */
  reset(): void;
  close(): Promise<void>;
};

export const OK_MODE: FakeMode = { kind: "status", status: 200, body: "OK" };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(value));
}

/** The status and headers at once, then `bytes` of "x" in 64 KiB chunks, each after `overMs / chunks`, while the client reads. */
async function stream(
  res: ServerResponse,
  { status, bytes, overMs }: { status: number; bytes: number; overMs: number },
) {
  res.writeHead(status, { "Content-Type": "text/plain", "Content-Length": String(bytes) });
  res.flushHeaders();
  const chunk = Buffer.alloc(64 * 1024, "x");
  const chunks = Math.ceil(bytes / chunk.length);
  const pause = overMs / chunks;
  const closed = new Promise((resolve) => res.once("close", resolve));
  for (let i = 0; i < chunks && !res.destroyed; i++) {
    if (pause >= 1) await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, pause))]);
    if (res.destroyed) break;
    const size = Math.min(chunk.length, bytes - i * chunk.length);
    if (!res.write(chunk.subarray(0, size))) {
      await Promise.race([closed, new Promise((resolve) => res.once("drain", resolve))]);
    }
  }
  if (!res.destroyed) res.end();
}

export async function startEmailJsFake(): Promise<EmailJsFake> {
  const requests: RecordedRequest[] = [];
  let mode: FakeMode = OK_MODE;
  let pending: FakeMode[] = [];
  const byMarker = new Map<string, FakeMode>();
  const timers = new Set<NodeJS.Timeout>();
  let minGapMs: number | null = null;

  const server = createServer(async (req, res) => {
    const rawBody = await readBody(req);
    const path = new URL(req.url ?? "/", "http://fake").pathname;

    if (path.startsWith("/__fake/")) {
      const control = parseJson(rawBody) as { mode?: FakeMode; match?: string } | undefined;
      if (req.method === "GET" && path === "/__fake/requests") {
        const match = new URL(req.url ?? "/", "http://fake").searchParams.get("match");
        return sendJson(res, 200, match ? requests.filter((r) => r.rawBody.includes(match)) : requests);
      }
      if (req.method === "POST" && path === "/__fake/mode" && control?.mode) {
        fake.setMode(control.mode, control.match);
        return sendJson(res, 200, { ok: true });
      }
      return sendJson(res, 404, { error: "unknown control request" });
    }

    const at = performance.now();
    const previous = requests.at(-1)?.at;
    const record: RecordedRequest = {
      method: req.method ?? "",
      path,
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
      at,
    };
    requests.push(record);
    const tooSoon = minGapMs !== null && previous !== undefined && at - previous < minGapMs;
    const marked = [...byMarker].find(([match]) => rawBody.includes(match));
    const answer: FakeMode = tooSoon
      ? { kind: "status", status: 429, body: "Too Many Requests" }
      : (marked?.[1] ?? pending.shift() ?? mode);
    if (answer.kind === "hang") return; // the socket stays open until close()
    if (answer.kind === "drop") return void req.socket.destroy();
    if (answer.kind === "streamed") return stream(res, answer);

    const respond = () => {
      record.status = answer.status;
      res.writeHead(answer.status, { "Content-Type": "text/plain", ...answer.headers });
      res.end(answer.body ?? (answer.status < 300 ? "OK" : `Fake status ${answer.status}`));
    };
    if (!answer.delayMs) return respond();
    const timer = setTimeout(() => {
      timers.delete(timer);
      respond();
    }, answer.delayMs);
    timers.add(timer);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const fake: EmailJsFake = {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    setMode(next, match) {
      if (match) byMarker.set(match, next);
      else mode = next;
    },
    queue(...modes) {
      pending.push(...modes);
    },
    limitRate(perSecond) {
      minGapMs = perSecond === null ? null : 1_000 / perSecond;
    },
    reset() {
      minGapMs = null;
      mode = OK_MODE;
      pending = [];
      byMarker.clear();
      requests.length = 0;
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

/** The most requests the provider saw in any one-second window. */
export function busiestSecond(requests: RecordedRequest[]) {
  const times = requests.map((request) => request.at).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < times.length; j++) {
    while (times[j]! - times[i]! >= 1_000) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/** The control client Playwright tests use against a fake in another process. */
export function fakeControl(baseUrl: string) {
  // No reset here: other workers share the fake; markers keep tests apart.
  const post = (path: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body ?? {}),
    }).then((res) => {
      if (!res.ok) throw new Error(`fake control ${path} answered ${res.status}`);
    });
  return {
    setMode: (mode: FakeMode, match: string) => post("/__fake/mode", { mode, match }),
    requests: async (match: string): Promise<RecordedRequest[]> =>
      (await fetch(`${baseUrl}/__fake/requests?match=${encodeURIComponent(match)}`)).json(),
  };
}
