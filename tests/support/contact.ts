// Shared by the contact tests: real Requests as a browser would send them, a
// configuration built the way the server builds it, and a collecting logger.
import { loadConfig, type AppConfig } from "~/config.server";
import type { RetryOptions } from "~/contact/delivery/emailjs.server";
import type { ContactEvent, ContactLogger } from "~/contact/events.server";
import type { RelayOutcome } from "~/contact/rules/message.server";
import { createContactAction, type ContactActionOutcome } from "~/contact/action/contact-action.server";
import { createContactServices } from "~/contact/services.server";
import { scratchOutbox } from "./scratch-outbox";

export const OWNER = "Test Owner";

export const VALID = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  subject: "Engines",
  message: "Hello,\nI would like to talk about the analytical engine.",
} as const;

/** What the relay and the outbox are given for VALID: the template's parameters. */
export const VALID_TEMPLATE_PARAMS = {
  name: VALID.name,
  from_email: VALID.email,
  subject: VALID.subject,
  message: VALID.message,
  to_name: OWNER,
} as const;

/** The relay's answer when EmailJS answered 500 to one attempt: what the rules get for a provider's failure. */
export const PROVIDER_FAILED: Extract<RelayOutcome, { failure: unknown }> = {
  ok: false,
  failure: "server_error",
  status: 500,
  text: "Internal Server Error",
  uncertain: false,
  counted: false,
  hint: null,
  refusedForItself: false,
  attempts: 1,
};

/** Fast enough for tests, same shape as the defaults; an answer may take 1.5 s on a busy machine. */
export const FAST_RETRY: RetryOptions = {
  attemptTimeoutMs: 1_500,
  initialBackoffMs: 20,
  maxRetryAfterMs: 2_000,
  maxAttempts: 3,
  deadlineMs: 3_000,
};

export const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "Accept-Language": "en-GB,en;q=0.9",
};

export const silentConfigLogger = { info: () => {}, warn: () => {} };

export function testConfig(env: Record<string, string | undefined>): AppConfig {
  return loadConfig(env, silentConfigLogger);
}

/** Relay mode against `apiUrl`; undelivered messages go to a scratch folder unless `extra` sets OUTBOX_DIR. */
export function relayEnv(apiUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    EMAILJS_PUBLIC_KEY: "pk_test_PUBLIC_123",
    EMAILJS_SERVICE_ID: "service_test_456",
    EMAILJS_TEMPLATE_ID: "template_test_789",
    EMAILJS_API_URL: apiUrl,
    OUTBOX_DIR: scratchOutbox(),
    // The provider's limits have their own tests (contact-provider-limits.test.ts); these test the rest.
    EMAILJS_MAX_PER_SECOND: "100",
    CONTACT_DAILY_SEND_LIMIT: "1000000",
    CONTACT_MONTHLY_SEND_LIMIT: "1000000",
    CONTACT_NETWORK_DAILY_LIMIT: "1000000",
    ...extra,
  };
}

export async function setupAction(
  env: Record<string, string | undefined>,
  { retry = FAST_RETRY, log }: { retry?: RetryOptions; log?: ContactLogger } = {},
) {
  const events: ContactEvent[] = [];
  // The proof and time limits have their own tests (contact-bots.test.ts); these test what follows them.
  const config = testConfig({ CONTACT_BOT_CHECKS: "off", ...env });
  const services = await createContactServices(config, {
    toName: OWNER,
    log: log ?? ((event) => events.push(event)),
    retry,
  });
  const action = createContactAction(services);
  /**
   * `clientAddress`: the client as the server resolves it (Express's req.ip). Without it the right-most
   * X-Forwarded-For entry stands in, as one trusted proxy would give it; without that, one client.
   */
  const run = async (request: Request, clientAddress?: string) => {
    const address = clientAddress ?? request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    return action({ request, params: {}, context: address ? { clientAddress: address } : {} });
  };
  return { action, run, events };
}

type FormValues = Record<string, string | string[]>;

export function formBody(values: FormValues): URLSearchParams {
  const body = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    for (const item of Array.isArray(value) ? value : [value]) body.append(key, item);
  }
  return body;
}

/** A urlencoded POST to "/?index", as a browser sends the form. */
export function formRequest(values: FormValues, headers: Record<string, string> = {}): Request {
  return new Request("http://localhost/?index", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...BROWSER_HEADERS, ...headers },
    body: formBody(values),
  });
}

/**
 * The form posted over the network to `url` (the contact form's is "<origin>/?index"), urlencoded, redirects
 * not followed. `headers` are all the others the client sends: a browser's unless the caller names them.
 */
export function postForm(
  url: string,
  values: FormValues,
  headers: Record<string, string> = BROWSER_HEADERS,
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
    body: formBody(values),
    redirect: "manual",
  });
}

/** A browser's no-JS post of VALID to the site at `origin`, its subject in its text too: the answer's status. */
export async function postSubject(
  origin: string,
  subject: string,
  values: Partial<FormValues> = {},
): Promise<number> {
  const form = { ...VALID, subject, message: `${VALID.message} ${subject}`, ...values };
  return (await postForm(`${origin}/?index`, form)).status;
}

type Outcome<Kind extends ContactActionOutcome["kind"]> = Extract<ContactActionOutcome, { kind: Kind }>;

export function expectFailure(outcome: ContactActionOutcome): Outcome<"failure"> {
  if (outcome.kind !== "failure") throw new Error(`expected a failure, got ${JSON.stringify(outcome)}`);
  return outcome;
}

export function expectRedirect(outcome: ContactActionOutcome): Outcome<"redirect"> {
  if (outcome.kind !== "redirect") throw new Error(`expected a redirect, got ${JSON.stringify(outcome)}`);
  return outcome;
}
