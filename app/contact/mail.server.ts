// Where an accepted message goes: the EmailJS client (decisions 001, 006, 026), the outbox, the undelivered
// folder (decisions 007, 024, 025), the transport between them, and the log (no body, address or key).
import { createHash, randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { lock } from "proper-lockfile";
import { z } from "zod";
import type { MailConfig } from "~/config.server";
import { writeLogLine } from "~/lib/log-line.server";
import type { ContactFailureReason } from "./contract";

// ---- The EmailJS client ----
export const EMAILJS_LIB_VERSION = "4.4.1";
export const EMAILJS_SEND_PATH = "/api/v1.0/email/send";

export type TemplateParams = {
  name: string;
  from_email: string;
  subject: string;
  message: string;
  to_name: string;
};

export type EmailJsCredentials = {
  publicKey: string;
  serviceId: string;
  templateId: string;
  privateKey?: string;
};

export type EmailJsSendBody = {
  lib_version: typeof EMAILJS_LIB_VERSION;
  user_id: string;
  service_id: string;
  template_id: string;
  template_params: TemplateParams;
  accessToken?: string;
};

export function buildSendBody(credentials: EmailJsCredentials, params: TemplateParams): EmailJsSendBody {
  return {
    lib_version: EMAILJS_LIB_VERSION,
    user_id: credentials.publicKey,
    service_id: credentials.serviceId,
    template_id: credentials.templateId,
    template_params: params,
    // Strict mode: EmailJS then requires the private key on every API call.
    ...(credentials.privateKey ? { accessToken: credentials.privateKey } : {}),
  };
}

export type RetryOptions = {
  attemptTimeoutMs: number;
  /** Before the first retry after a failed connection; doubles after each. */
  initialBackoffMs: number;
  /** The longest Retry-After of a 429 or 503 that is waited for. */
  maxRetryAfterMs: number;
  maxAttempts: number;
  /** No attempt starts or runs past this, counted from the first. */
  deadlineMs: number;
};

// A visitor is waiting on the form: 10 s at most, under the server's 15 s drain bound (decision 006).
export const DEFAULT_RETRY: RetryOptions = {
  attemptTimeoutMs: 3_000,
  initialBackoffMs: 1_000,
  maxRetryAfterMs: 2_000,
  maxAttempts: 3,
  deadlineMs: 10_000,
};

/** unreachable: no connection was made; dropped: it broke once the request may have been written. */
export type SendFailureKind = "rejected" | "server_error" | "unreachable" | "dropped" | "timeout";

export type SendResult = {
  status: number;
  text: string;
  attempts: number;
  durationMs: number;
} & (
  | { ok: true }
  | {
      ok: false;
      failure: SendFailureKind;
      /** The provider may have received the message (a timeout, a 5xx or a broken connection). */
      uncertain: boolean;
    }
);

type Attempt =
  | { status: number; text: string; retryAfter: string | null }
  | { error: "unreachable" | "dropped" | "timeout" };

// DNS and connect failures: no byte of the request was written.
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

function neverSent(cause: unknown): boolean {
  // With several addresses for one host, Node reports each failed connect in an AggregateError.
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every(neverSent);
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === "string" && NOT_SENT_CODES.has(code);
}

/** The most of an answer's body that is read, and how long it is waited for (decision 026). */
const ANSWER_MAX_BYTES = 4 * 1024;
const ANSWER_WAIT_MS = 500;

async function answerText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), ANSWER_WAIT_MS);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < ANSWER_MAX_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // Cut short (the attempt's time ran out): what arrived is enough.
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, ANSWER_MAX_BYTES).toString("utf8");
}

async function attempt(url: string, payload: string, timeoutMs: number): Promise<Attempt> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
      // A redirect is an answer: this address did not take the message (never followed).
      redirect: "manual",
    });
    return {
      status: response.status,
      text: await answerText(response),
      retryAfter: response.headers.get("retry-after"),
    };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      return { error: "timeout" };
    }
    // A TypeError with the cause; anything but a failed connect may have been delivered (decision 006).
    if (error instanceof TypeError) return { error: neverSent(error.cause) ? "unreachable" : "dropped" };
    throw error;
  }
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  // HTTP's date form only (Date.parse alone takes "-1" or "1.5" as dates).
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** POSTs `body` to EmailJS, retrying only what cannot have been delivered (decisions 006, 026). */
export async function sendEmail(
  apiUrl: string,
  body: EmailJsSendBody,
  options: RetryOptions = DEFAULT_RETRY,
): Promise<SendResult> {
  const url = `${apiUrl}${EMAILJS_SEND_PATH}`;
  const payload = JSON.stringify(body);
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  let backoff = options.initialBackoffMs;
  let attempts = 0;

  for (;;) {
    attempts += 1;
    const remaining = options.deadlineMs - elapsed();
    // AbortSignal.timeout takes whole milliseconds only.
    const result = await attempt(
      url,
      payload,
      Math.max(1, Math.ceil(Math.min(options.attemptTimeoutMs, remaining))),
    );
    const durationMs = Math.round(elapsed());

    let failure: SendFailureKind;
    let pause: number | null = null;
    if ("status" in result) {
      if (result.status >= 200 && result.status < 300) {
        return { ok: true, status: result.status, text: result.text, attempts, durationMs };
      }
      failure = result.status < 500 ? "rejected" : "server_error";
      if (result.status === 429 || result.status === 503) {
        const wait = parseRetryAfter(result.retryAfter);
        if (wait !== null && wait <= options.maxRetryAfterMs) pause = wait;
      }
    } else {
      failure = result.error;
      if (failure === "unreachable") {
        pause = backoff;
        backoff *= 2;
      }
    }

    if (pause === null || attempts >= options.maxAttempts || elapsed() + pause >= options.deadlineMs) {
      return {
        ok: false,
        failure,
        uncertain: failure === "server_error" || failure === "dropped" || failure === "timeout",
        status: "status" in result ? result.status : 0,
        text: "status" in result ? result.text : "Network Error",
        attempts,
        durationMs,
      };
    }
    const wait = pause;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

// ---- The outbox (no EmailJS account): each message as the JSON the relay would send ----
export type OutboxEntry = {
  lib_version: typeof EMAILJS_LIB_VERSION;
  template_params: TemplateParams;
};

export function outboxEntry(params: TemplateParams): OutboxEntry {
  return { lib_version: EMAILJS_LIB_VERSION, template_params: params };
}

export async function writeToOutbox(dir: string, params: TemplateParams): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.json`);
  // Visitors' addresses are personal data: owner-only permissions.
  await writeFile(file, `${JSON.stringify(outboxEntry(params), null, 2)}\n`, { mode: 0o600, flag: "wx" });
  return file;
}

// ---- Undelivered messages: one owner-only file per message, named by its content ----
export type UndeliveredEntry = OutboxEntry & {
  /** When the message first failed (ISO 8601). */
  time: string;
  reason: ContactFailureReason;
  /** The provider's last HTTP status, 0 when none came back. */
  upstreamStatus: number;
  /** Some attempt may have reached the provider: resending may duplicate it. */
  uncertain: boolean;
};

export type UndeliveredFailure = Pick<UndeliveredEntry, "reason" | "upstreamStatus" | "uncertain">;

export const UNDELIVERED_LIMIT = 1_000;

export function undeliveredFileName(params: TemplateParams): string {
  const key = JSON.stringify([params.from_email, params.subject, params.message]);
  return `${createHash("sha256").update(key).digest("hex").slice(0, 32)}.json`;
}

function isEntryFile(name: string): boolean {
  return name.endsWith(".json") && !name.startsWith(".");
}

async function entryFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter(isEntryFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

export async function countUndelivered(dir: string): Promise<number> {
  return (await entryFiles(dir)).length;
}

/** Runs `work` under the folder's lock `name`; others wait (`wait`) or fail with ELOCKED. */
async function locked<T>(dir: string, name: string, wait: boolean, work: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Locks by distinct paths: proper-lockfile keeps one lock per path in a process.
  const release = await lock(path.join(dir, `.${name}`), {
    realpath: false,
    // A crashed holder's lock is taken over once it has not been refreshed for 10 s.
    stale: 10_000,
    retries: wait ? { retries: 100, factor: 1.2, minTimeout: 5, maxTimeout: 100 } : 0,
  });
  try {
    return await work();
  } finally {
    await release();
  }
}

const ENTRY = z.object({
  lib_version: z.string(),
  template_params: z.object({
    name: z.string(),
    from_email: z.string(),
    subject: z.string(),
    message: z.string(),
    to_name: z.string(),
  }),
  time: z.string(),
  reason: z.string(),
  upstreamStatus: z.number(),
  uncertain: z.boolean(),
});

const ENTRY_MAX_BYTES = 64 * 1024;

/** The message in `file`, or why it is not one; links and FIFOs are not read (decision 025). */
export async function readUndelivered(file: string): Promise<UndeliveredEntry | { problem: string }> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ELOOP" ? "a link, not a file" : `cannot be opened (${code})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { problem: "not a regular file" };
    if (stat.size > ENTRY_MAX_BYTES) return { problem: `too large (${stat.size} bytes)` };
    const parsed = ENTRY.safeParse(JSON.parse(await handle.readFile("utf8")));
    return parsed.success ? (parsed.data as UndeliveredEntry) : { problem: "not a kept message" };
  } catch (error) {
    return { problem: `not JSON (${(error as Error).message})` };
  } finally {
    await handle.close();
  }
}

export type Listed = {
  /** Every waiting message with its file, oldest first. */
  messages: { file: string; entry: UndeliveredEntry }[];
  skipped: { file: string; problem: string }[];
};

export async function listUndelivered(dir: string): Promise<Listed> {
  const listed: Listed = { messages: [], skipped: [] };
  for (const name of await entryFiles(dir)) {
    const file = path.join(dir, name);
    const entry = await readUndelivered(file);
    if ("problem" in entry) listed.skipped.push({ file, problem: entry.problem });
    else listed.messages.push({ file, entry });
  }
  listed.messages.sort((a, b) => a.entry.time.localeCompare(b.entry.time));
  return listed;
}

/** "new" and "existing" are kept; the others say why a message was not. */
export type StoreOutcome = "new" | "existing" | "full" | "client_full";

/** Keeps or updates the message's file; `mayKeep` goes last, so a full folder costs the sender nothing. */
export function storeUndelivered(
  dir: string,
  params: TemplateParams,
  failure: UndeliveredFailure,
  mayKeep?: () => Promise<boolean>,
  now = new Date(),
): Promise<StoreOutcome> {
  return locked(dir, "store", true, async () => {
    const file = path.join(dir, undeliveredFileName(params));
    const previous = await readUndelivered(file);
    const existing = "problem" in previous ? null : previous;
    if (!existing) {
      if ((await countUndelivered(dir)) >= UNDELIVERED_LIMIT) return "full";
      if (mayKeep && !(await mayKeep())) return "client_full";
    }
    const entry: UndeliveredEntry = {
      ...outboxEntry(params),
      time: existing?.time ?? now.toISOString(),
      reason: failure.reason,
      upstreamStatus: failure.upstreamStatus,
      uncertain: Boolean(existing?.uncertain) || failure.uncertain,
    };
    // Written aside and renamed (decision 007); a failed write (a full disk) leaves no part behind.
    const temporary = path.join(dir, `.${randomUUID()}.tmp`);
    try {
      await writeFile(temporary, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600, flag: "wx" });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    return existing ? "existing" : "new";
  });
}

/** Forgets the stored copy of a message that has now been delivered; true when there was one. */
export async function removeUndelivered(dir: string, params: TemplateParams): Promise<boolean> {
  try {
    await rm(path.join(dir, undeliveredFileName(params)));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/** Runs `resend` under the resend lock, one file per message; null when locked (decision 025). */
export function whileResending<T>(dir: string, resend: (listed: Listed) => Promise<T>): Promise<T | null> {
  return locked(dir, "resend", false, async () => {
    const listed = await listUndelivered(dir);
    const own = (entry: UndeliveredEntry) => path.join(dir, undeliveredFileName(entry.template_params));
    // One file per message: the one already under its own name, else the first found.
    const chosen = new Map<string, Listed["messages"][number]>();
    for (const item of listed.messages) {
      if (!chosen.has(own(item.entry)) || item.file === own(item.entry)) chosen.set(own(item.entry), item);
    }
    for (const item of listed.messages) {
      if (chosen.get(own(item.entry)) !== item) await rm(item.file, { force: true });
    }
    const messages: Listed["messages"] = [];
    for (const [file, item] of chosen) {
      if (item.file !== file) await rename(item.file, file);
      messages.push({ file, entry: item.entry });
    }
    return resend({ messages, skipped: listed.skipped });
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ELOCKED") return null;
    throw error;
  });
}

// ---- The transport: relay or outbox, and what is kept when the relay fails ----
export type TransportResult = { ok: true } | { ok: false; status: number; reason: ContactFailureReason };

/** Sends one message; `mayKeep` is asked before a failed one is kept as a new file (decision 024). */
export type Transport = (
  params: TemplateParams,
  mayKeep?: () => Promise<boolean>,
) => Promise<TransportResult>;

const FAILURE: Record<SendFailureKind, { status: number; reason: ContactFailureReason }> = {
  rejected: { status: 502, reason: "upstream_rejected" },
  server_error: { status: 502, reason: "upstream_error" },
  unreachable: { status: 502, reason: "upstream_unreachable" },
  dropped: { status: 502, reason: "upstream_dropped" },
  timeout: { status: 504, reason: "upstream_timeout" },
};

export function createTransport(mail: MailConfig, log: ContactLogger, retry?: RetryOptions): Transport {
  if (mail.mode === "outbox") {
    return async (params) => {
      log({ outcome: "accepted", transport: "outbox" });
      try {
        await writeToOutbox(mail.dir, params);
        return { ok: true };
      } catch {
        return { ok: false, status: 500, reason: "outbox_write_failed" };
      }
    };
  }

  return async (params, mayKeep) => {
    log({ outcome: "accepted", transport: "relay" });
    const result = await sendEmail(mail.apiUrl, buildSendBody(mail, params), retry);
    log({
      outcome: "relayed",
      ok: result.ok,
      upstreamStatus: result.status,
      attempts: result.attempts,
      durationMs: result.durationMs,
    });
    if (result.ok) {
      // The owner has it now: an earlier failed copy of it is no longer waiting.
      await removeUndelivered(mail.undeliveredDir, params).catch(() => false);
      return { ok: true };
    }

    const failure = FAILURE[result.failure];
    const kept = { reason: failure.reason, uncertain: result.uncertain };
    let stored: StoreOutcome | "failed";
    try {
      stored = await storeUndelivered(
        mail.undeliveredDir,
        params,
        { ...kept, upstreamStatus: result.status },
        mayKeep,
      );
    } catch {
      stored = "failed";
    }
    log({ outcome: "undelivered", ...kept, stored });
    // Not sent and not kept: the visitor must know it is up to them now.
    if (stored !== "new" && stored !== "existing") return { ok: false, status: 503, reason: "not_kept" };
    return { ok: false, ...failure };
  };
}

// ---- The log: one JSON line per step ----
export type ContactEvent =
  | { outcome: "accepted"; transport: "relay" | "outbox" }
  | { outcome: "dropped"; reason: "honeypot" }
  | { outcome: "refused"; status: number; reason: ContactFailureReason }
  | {
      outcome: "relayed";
      ok: boolean;
      upstreamStatus: number;
      attempts: number;
      durationMs: number;
    }
  | {
      /** The relay failed and the message was kept in the undelivered folder (or could not be). */
      outcome: "undelivered";
      reason: ContactFailureReason;
      uncertain: boolean;
      stored: StoreOutcome | "failed";
    };

export type ContactLogger = (event: ContactEvent) => void;

export const logContactEvent: ContactLogger = (event) => writeLogLine("contact", event);
