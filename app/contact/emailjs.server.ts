// A small client for EmailJS's REST API. It sends exactly the body that
// @emailjs/browser 4.4.1's send() produces and uses Node's native fetch
// (docs/decisions/001-server-side-emailjs-client.md: why not @emailjs/nodejs).
// It retries only what the provider cannot have received, so one message
// never reaches the owner twice (docs/decisions/006).

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
  /** Longest wait for one attempt, answer body included. */
  attemptTimeoutMs: number;
  /** Wait before the first retry after a failed connection; doubles after each. */
  initialBackoffMs: number;
  /** The longest Retry-After of a 429 or 503 that is waited for; a longer one is final. */
  maxRetryAfterMs: number;
  maxAttempts: number;
  /** No attempt starts or runs past this, counted from the first. */
  deadlineMs: number;
};

// A visitor is waiting on the form: three attempts of up to 3 s with pauses
// of at most 2 s fit inside 10 s, under the server's 15 s drain bound.
export const DEFAULT_RETRY: RetryOptions = {
  attemptTimeoutMs: 3_000,
  initialBackoffMs: 1_000,
  maxRetryAfterMs: 2_000,
  maxAttempts: 3,
  deadlineMs: 10_000,
};

/**
 * rejected: a 3xx or a 4xx (429 included) that was final; server_error: a 5xx;
 * unreachable: no connection was made; dropped: the connection broke once the
 * request may have been written; timeout: no full answer in time.
 */
export type SendFailureKind = "rejected" | "server_error" | "unreachable" | "dropped" | "timeout";

export type SendResult = {
  /** 0 when no HTTP answer came back. */
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

// Errors that happen before a connection exists, so before any byte of the
// request was written: DNS and connect failures.
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

/**
 * The start of the answer's body: the status has decided already, so a body
 * that is slow or huge costs neither the visitor's time nor the server's memory.
 */
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
    // fetch reports network failures as a TypeError with the cause. fetch
    // cannot say whether a reset came before or after the body was written,
    // so anything but a failed connect counts as possibly delivered.
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

/**
 * POSTs `body` to `{apiUrl}/api/v1.0/email/send`. Any 2xx is success, whatever
 * its body; a 3xx (not followed) and a 4xx are refusals. Retried,
 * while attempts and the deadline allow: a failed connect (after the backoff)
 * and a 429 or 503 whose Retry-After is at most `maxRetryAfterMs`. Everything
 * else is final at once: the other 4xx, the other 5xx, timeouts and broken
 * connections, since the provider may already have sent the mail.
 */
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
