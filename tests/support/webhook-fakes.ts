// Real HTTP fakes on 127.0.0.1 of the webhooks the owner's alerts go to (ntfy, Slack, Discord, plain
// JSON). Each checks its service's documented request strictly, answers a malformed one with 400 as the
// service does, and records what it accepted; it can fail a number of times first, or never answer.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type WebhookService = "ntfy" | "slack" | "discord" | "json";

export type AcceptedAlert = { path: string; headers: IncomingHttpHeaders; rawBody: string; body: unknown };

export type WebhookFake = {
  service: WebhookService;
  /** The webhook's URL; its path stands for the secret part of a real one. */
  url: string;
  /** The path's secret part, to look for where it must not be. */
  secret: string;
  /** Every request that arrived, accepted or not. */
  received: number;
  accepted: AcceptedAlert[];
  /** Answers the next `times` requests with 500. */
  failNext(times: number): void;
  /** Never answers from now on (until reset). */
  hang(): void;
  reset(): void;
  close(): Promise<void>;
};

type Verdict =
  { ok: true; status: number; body: string; type?: string } | { ok: false; body: string; type: string };

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isJsonRequest = (headers: IncomingHttpHeaders) =>
  (headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() === JSON_TYPE;

const NTFY_PRIORITIES = new Set(["1", "2", "3", "4", "5", "min", "low", "default", "high", "max", "urgent"]);

/** https://docs.ntfy.sh/publish/: the message is the body, Title/Priority/Tags/Click/Actions are headers. */
function ntfy(path: string, headers: IncomingHttpHeaders, rawBody: string): Verdict {
  const refuse = (error: string): Verdict => ({
    ok: false,
    type: JSON_TYPE,
    body: JSON.stringify({ code: 40000, http: 400, error }),
  });
  if (rawBody.trim() === "") return refuse("empty message");
  const title = headers["title"];
  if (typeof title !== "string" || title.trim() === "") return refuse("no Title header");
  const priority = headers["priority"];
  if (priority !== undefined && !NTFY_PRIORITIES.has(String(priority).toLowerCase())) {
    return refuse("invalid priority");
  }
  // Actions in the short form: "view, label, url[, clear=true]; http, label, url, …" (at most three).
  const actions = headers["actions"] === undefined ? [] : String(headers["actions"]).split(";");
  const actionOk = (action: string) => {
    const [kind, label, url] = action.split(",").map((part) => part.trim());
    return (
      ["view", "http", "broadcast"].includes(kind ?? "") &&
      !!label &&
      (kind === "broadcast" || !!URL.parse(url ?? ""))
    );
  };
  if (actions.length > 3 || !actions.every(actionOk)) return refuse("invalid request: actions invalid");
  const click = headers["click"];
  if (click !== undefined && !URL.parse(String(click))) return refuse("invalid request: click URL invalid");
  const topic = path.slice(1);
  const message = { id: "fake", time: Math.floor(Date.now() / 1000), event: "message", topic, title };
  return { ok: true, status: 200, type: JSON_TYPE, body: JSON.stringify({ ...message, message: rawBody }) };
}

/** Slack incoming webhook: JSON with a string `text`; "ok", or 400 "invalid_payload". */
function slack(headers: IncomingHttpHeaders, rawBody: string): Verdict {
  const body = isJsonRequest(headers) ? (parseJson(rawBody) as { text?: unknown } | undefined) : undefined;
  if (typeof body?.text !== "string" || body.text === "") {
    return { ok: false, type: TEXT, body: "invalid_payload" };
  }
  return { ok: true, status: 200, type: TEXT, body: "ok" };
}

/** Discord execute webhook: JSON with `content` of 1 to 2000 characters; 204 without `?wait=true`. */
function discord(headers: IncomingHttpHeaders, rawBody: string): Verdict {
  const body = isJsonRequest(headers)
    ? (parseJson(rawBody) as { content?: unknown; username?: unknown } | undefined)
    : undefined;
  const content = body?.content;
  const fine =
    typeof content === "string" &&
    content.length > 0 &&
    content.length <= 2000 &&
    (body?.username === undefined || typeof body.username === "string");
  if (!fine) {
    return {
      ok: false,
      type: JSON_TYPE,
      body: JSON.stringify({ message: "Invalid Form Body", code: 50035 }),
    };
  }
  return { ok: true, status: 204, body: "" };
}

/** Our own plain JSON: `event`, `title` and `text` strings, and `url` a URL when there is one. */
function json(headers: IncomingHttpHeaders, rawBody: string): Verdict {
  const body = isJsonRequest(headers)
    ? (parseJson(rawBody) as Record<string, unknown> | undefined)
    : undefined;
  const fine =
    ["event", "title", "text"].every((key) => typeof body?.[key] === "string") &&
    (body?.["url"] === undefined || URL.parse(String(body["url"])) !== null);
  if (!fine) return { ok: false, type: TEXT, body: "not the alert's JSON" };
  return { ok: true, status: 204, body: "" };
}

const PATHS: Record<WebhookService, { path: string; secret: string }> = {
  ntfy: { path: "/owner-alerts_SECRETtopic42", secret: "SECRETtopic42" },
  slack: { path: "/services/T0001/B0002/SECRETslackToken", secret: "SECRETslackToken" },
  discord: { path: "/api/webhooks/1234567890/SECRETdiscordToken", secret: "SECRETdiscordToken" },
  json: { path: "/hooks/SECRETjsonToken", secret: "SECRETjsonToken" },
};

function judge(service: WebhookService, path: string, headers: IncomingHttpHeaders, rawBody: string) {
  if (service === "ntfy") return ntfy(path, headers, rawBody);
  if (service === "slack") return slack(headers, rawBody);
  if (service === "discord") return discord(headers, rawBody);
  return json(headers, rawBody);
}

function answer(res: ServerResponse, status: number, body: string, type?: string) {
  res.writeHead(status, type ? { "Content-Type": type } : {});
  res.end(body);
}

export async function startWebhookFake(service: WebhookService): Promise<WebhookFake> {
  const { path: webhookPath, secret } = PATHS[service];
  let failures = 0;
  let hanging = false;

  const server = createServer((req, res) => {
    fake.received += 1;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (hanging) return; // the socket stays open until the client gives up or close()
      if (failures > 0) {
        failures -= 1;
        return answer(res, 500, "fake failure", TEXT);
      }
      const path = new URL(req.url ?? "/", "http://fake").pathname;
      if (req.method !== "POST") return answer(res, 405, "method not allowed", TEXT);
      if (path !== webhookPath) return answer(res, 404, "no such webhook", TEXT);
      const rawBody = Buffer.concat(chunks).toString("utf8");
      const verdict = judge(service, path, req.headers, rawBody);
      if (!verdict.ok) return answer(res, 400, verdict.body, verdict.type);
      fake.accepted.push({ path, headers: req.headers, rawBody, body: parseJson(rawBody) });
      answer(res, verdict.status, verdict.body, verdict.type);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const fake: WebhookFake = {
    service,
    url: `http://127.0.0.1:${port}${webhookPath}`,
    secret,
    received: 0,
    accepted: [],
    failNext(times) {
      failures = times;
    },
    hang() {
      hanging = true;
    },
    reset() {
      failures = 0;
      hanging = false;
      fake.received = 0;
      fake.accepted.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
