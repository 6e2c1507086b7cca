// The EmailJS client: @emailjs/browser 4.4.1's body, posted from the server (decisions 001, 006, 026).
import type { MailConfig } from "~/config.server";
import type { SendFailureKind, TemplateParams } from "../rules/message.server";

export const EMAILJS_LIB_VERSION = "4.4.1";
const EMAILJS_SEND_PATH = "/api/v1.0/email/send";

type EmailJsSendBody = {
  lib_version: typeof EMAILJS_LIB_VERSION;
  user_id: string;
  service_id: string;
  template_id: string;
  template_params: TemplateParams;
  accessToken?: string;
};

type Credentials = Pick<
  Extract<MailConfig, { mode: "relay" }>,
  "publicKey" | "serviceId" | "templateId" | "privateKey"
>;

export function buildSendBody(credentials: Credentials, params: TemplateParams): EmailJsSendBody {
  return {
    lib_version: EMAILJS_LIB_VERSION,
    user_id: credentials.publicKey,
    service_id: credentials.serviceId,
    template_id: credentials.templateId,
    template_params: params,
    ...(credentials.privateKey ? { accessToken: credentials.privateKey } : {}),
  };
}

export type RetryOptions = {
  attemptTimeoutMs: number;
  initialBackoffMs: number;
  maxRetryAfterMs: number;
  maxAttempts: number;
  deadlineMs: number;
};

// A visitor waits on the form: 2 s for a slot, then 10 s at most, under the 15 s drain bound (decisions 006, 050).
export const RETRIES_WITHIN_A_REQUEST: RetryOptions = {
  attemptTimeoutMs: 3_000,
  initialBackoffMs: 1_000,
  maxRetryAfterMs: 2_000,
  maxAttempts: 3,
  deadlineMs: 10_000,
};

export type SendResult = { status: number; text: string; attempts: number; durationMs: number } & (
  | { ok: true }
  | {
      ok: false;
      failure: SendFailureKind;
      uncertain: boolean;
      retryAfterMs: number | null;
    }
);

type Attempt =
  | { status: number; text: string; retryAfter: string | null }
  | { error: "unreachable" | "dropped" | "timeout" };

// DNS and connect failures: no byte of the request was written.
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

function neverSent(cause: unknown): boolean {
  if (cause instanceof AggregateError) return cause.errors.length > 0 && cause.errors.every(neverSent);
  const code = (cause as { code?: unknown } | null)?.code;
  return typeof code === "string" && NOT_SENT_CODES.has(code);
}

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
    // Anything but a failed connect may have been delivered (decision 006).
    if (error instanceof TypeError) return { error: neverSent(error.cause) ? "unreachable" : "dropped" };
    throw error;
  }
}

export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1_000, Number.MAX_SAFE_INTEGER);
  // HTTP's date form only (Date.parse alone takes "-1" or "1.5" as dates).
  if (!/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return null;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

export async function sendEmail(
  apiUrl: string,
  body: EmailJsSendBody,
  options: RetryOptions = RETRIES_WITHIN_A_REQUEST,
  slot: (maxWaitMs: number) => Promise<boolean> = async () => true,
): Promise<SendResult> {
  const url = `${apiUrl}${EMAILJS_SEND_PATH}`;
  const payload = JSON.stringify(body);
  let left: number | null = null;
  const elapsed = () => (left === null ? 0 : performance.now() - left);
  let backoff = options.initialBackoffMs;
  let attempts = 0;

  let last: SendResult | null = null;
  for (;;) {
    const latest = left === null ? Infinity : options.deadlineMs - options.attemptTimeoutMs - elapsed();
    if (latest < 0 || !(await slot(latest))) {
      const notSent = { ok: false, failure: "paced", uncertain: false, retryAfterMs: null } as const;
      return last ?? { ...notSent, status: 0, text: "", attempts, durationMs: 0 };
    }
    left ??= performance.now();
    attempts += 1;
    const result = await attempt(url, payload, options.attemptTimeoutMs);
    const durationMs = Math.round(elapsed());

    let failure: SendFailureKind;
    let pause: number | null = null;
    let retryAfterMs: number | null = null;
    if ("status" in result) {
      if (result.status >= 200 && result.status < 300) {
        return { ok: true, status: result.status, text: result.text, attempts, durationMs };
      }
      failure = result.status < 500 ? "rejected" : "server_error";
      if (result.status === 429 || result.status === 503) {
        retryAfterMs = parseRetryAfter(result.retryAfter);
        if (retryAfterMs !== null && retryAfterMs <= options.maxRetryAfterMs) pause = retryAfterMs;
      }
    } else {
      failure = result.error;
      if (failure === "unreachable") {
        pause = backoff;
        backoff *= 2;
      }
    }

    last = {
      ok: false,
      failure,
      uncertain: failure === "server_error" || failure === "dropped" || failure === "timeout",
      retryAfterMs,
      status: "status" in result ? result.status : 0,
      text: "status" in result ? result.text : "Network Error",
      attempts,
      durationMs,
    };
    const tooLate = (pause ?? 0) + options.attemptTimeoutMs > options.deadlineMs - elapsed();
    if (pause === null || attempts >= options.maxAttempts || tooLate) return last;
    const wait = pause;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}
