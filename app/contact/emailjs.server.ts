// A small client for EmailJS's REST API. It sends exactly the body that
// @emailjs/browser 4.4.1's send() produces and uses Node's native fetch
// (docs/decisions/001-server-side-emailjs-client.md: why not @emailjs/nodejs).

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
  /** Wait before the first retry; doubles after each. */
  initialBackoffMs: number;
  /** No attempt starts or runs past this, counted from the first. */
  deadlineMs: number;
};

// A visitor is waiting on the form: three attempts of up to 3 s with 1 s and
// 2 s pauses fit inside 10 s.
export const DEFAULT_RETRY: RetryOptions = {
  attemptTimeoutMs: 3_000,
  initialBackoffMs: 1_000,
  deadlineMs: 10_000,
};

export type SendFailureKind = "rejected" | "server_error" | "unreachable" | "timeout";

export type SendResult = {
  /** 0 when no HTTP answer came back. */
  status: number;
  text: string;
  attempts: number;
  durationMs: number;
} & ({ ok: true } | { ok: false; failure: SendFailureKind });

type Attempt = { status: number; text: string } | { error: "unreachable" | "timeout" };

async function attempt(url: string, payload: string, timeoutMs: number): Promise<Attempt> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: payload,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    return { status: response.status, text: await response.text() };
  } catch (error) {
    if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
      return { error: "timeout" };
    }
    // fetch reports connection failures (refused, reset, DNS) as a TypeError.
    if (error instanceof TypeError) return { error: "unreachable" };
    throw error;
  }
}

/**
 * POSTs `body` to `{apiUrl}/api/v1.0/email/send`. Any 2xx is success; a 4xx is
 * final; network errors, timeouts and 5xx are retried with a doubling backoff
 * until the deadline.
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
  let pause = options.initialBackoffMs;
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

    if ("status" in result) {
      if (result.status >= 200 && result.status < 300) {
        return { ok: true, ...result, attempts, durationMs };
      }
      if (result.status < 500) {
        return { ok: false, failure: "rejected", ...result, attempts, durationMs };
      }
    }
    const failure: SendFailureKind = "error" in result ? result.error : "server_error";
    if (elapsed() + pause >= options.deadlineMs) {
      return {
        ok: false,
        failure,
        status: "status" in result ? result.status : 0,
        text: "status" in result ? result.text : "Network Error",
        attempts,
        durationMs,
      };
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause *= 2;
  }
}
