// The contact form's action (form -> size and type -> schema -> proof -> guards -> score -> transport -> outcome).
import { createCookie, type ActionFunctionArgs } from "@remix-run/node";
import { cameOverHttps } from "~/lib/https.server";
import { readFormPost } from "~/lib/form-post.server";
import { sharedRedis } from "~/lib/redis.server";
import type { AppConfig } from "~/config.server";
import { createBotChecks, type BotChecks } from "./bot-checks.server";
import { clientKey, createGuards, honeypotFilled, type Guards } from "./guards.server";
import {
  CONTACT_FIELDS,
  OUTCOME_ID,
  type ContactFailure,
  type ContactFailureReason,
  type ContactFields,
  type FieldErrors,
} from "./contract";
import type { RetryOptions } from "./emailjs.server";
import { validateContact } from "./schema";
import { createSpamScore } from "./spam-score.server";
import type { KeepAllowance } from "./store.server";
import { createTransport, keepForOwner, logContactEvent, type ContactLogger } from "./transport.server";

/** Above any valid form: 5,554 characters of up to 9 percent-encoded bytes (CJK) stay under 50 KB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const SUCCESS_REDIRECT = `/#${OUTCOME_ID}`;

const NOT_KEPT = { "Cache-Control": "private, no-store" };

/** What the action decided, in our own terms: action.server.ts alone turns it into Remix's answer. */
export type ContactActionOutcome =
  | { kind: "redirect"; status: 303; location: string; headers: Record<string, string> }
  | { kind: "failure"; status: number; headers: Record<string, string>; data: ContactFailure }
  | { kind: "status_page"; status: 429; statusText: string; headers: Record<string, string>; text: string };

export type ContactActionOptions = {
  config: AppConfig;
  toName: string;
  flash: ContactFlash;
  log?: ContactLogger;
  retry?: RetryOptions;
  guards?: Guards;
  botChecks?: BotChecks;
};

const EMPTY_FIELDS: ContactFields = { name: "", email: "", subject: "", message: "" };

export function createContactAction({
  config,
  toName,
  flash,
  log = logContactEvent,
  retry,
  guards: givenGuards,
  botChecks: givenBotChecks,
}: ContactActionOptions) {
  const redis = config.redisUrl ? sharedRedis(config.redisUrl) : null;
  const guards = givenGuards ?? createGuards(config, redis);
  const botChecks = givenBotChecks ?? createBotChecks(config, redis);
  const spamScore = createSpamScore(redis);
  const transport = createTransport(config.mail, log, retry);

  async function countRefusal(client: string): Promise<ContactActionOutcome | null> {
    const wait = await guards.refused(client);
    if (!wait) return null;
    log({ outcome: "refused", status: 429, reason: "too_many_refusals" });
    return {
      kind: "status_page",
      status: 429,
      statusText: "Too Many Requests",
      headers: { ...NOT_KEPT, "Retry-After": String(wait) },
      text: `Too many refused messages: please wait ${Math.ceil(wait / 60)} minutes.`,
    };
  }

  async function fail(
    client: string,
    status: number,
    reason: ContactFailureReason,
    fields: ContactFields,
    { fieldErrors, retryAfterSeconds }: { fieldErrors?: FieldErrors; retryAfterSeconds?: number } = {},
  ): Promise<ContactActionOutcome> {
    const cut = status < 500 ? await countRefusal(client) : null;
    if (cut) return cut;
    log({ outcome: "refused", status, reason });
    const body: ContactFailure = { ok: false, status, reason, fields };
    if (fieldErrors) body.fieldErrors = fieldErrors;
    if (!retryAfterSeconds) return { kind: "failure", status, headers: NOT_KEPT, data: body };
    body.retryAfterMinutes = Math.ceil(retryAfterSeconds / 60);
    const headers = { ...NOT_KEPT, "Retry-After": String(retryAfterSeconds) };
    return { kind: "failure", status, headers, data: body };
  }

  async function succeed(request: Request): Promise<ContactActionOutcome> {
    const headers = { "Set-Cookie": await flash.commit(request) };
    return { kind: "redirect", status: 303, location: SUCCESS_REDIRECT, headers };
  }

  async function keep(
    request: Request,
    client: string,
    fields: ContactFields,
    dir: string,
    params: Parameters<typeof transport>[0],
    kept: { reason: "suspected_spam" | "over_daily_limit"; signals?: string[] },
    mayKeep: () => Promise<KeepAllowance>,
  ) {
    const failure = { ...kept, upstreamStatus: 0, uncertain: false };
    const wasKept = await keepForOwner(log, { outcome: "kept", ...kept }, dir, params, failure, mayKeep);
    // Spam that could not be kept is still not mailed; a genuine message must be kept or refused.
    if (kept.reason === "over_daily_limit" && !wasKept) {
      return fail(client, 503, "not_kept", fields);
    }
    return succeed(request);
  }

  return async function contactAction({
    request,
    context,
  }: ActionFunctionArgs): Promise<ContactActionOutcome> {
    const client = clientKey(context.clientAddress);
    const post = await readFormPost(request, BODY_LIMIT_BYTES);
    if (!post.ok) {
      return fail(
        client,
        post.status,
        post.status === 413 ? "payload_too_large" : "unsupported_media_type",
        EMPTY_FIELDS,
      );
    }
    const { form } = post;

    const raw: Record<string, unknown> = {};
    const fields = { ...EMPTY_FIELDS };
    for (const field of CONTACT_FIELDS) {
      const values = form.getAll(field);
      // A duplicated field is not a single text: the schema refuses it.
      raw[field] = values.length === 1 ? values[0] : values.length === 0 ? undefined : values;
      const firstText = values.find((value) => typeof value === "string");
      fields[field] = typeof firstText === "string" ? firstText : "";
    }

    if (context.crossSite) return fail(client, 403, "cross_site", EMPTY_FIELDS);

    const validation = validateContact(raw);
    if (!validation.ok)
      return fail(client, 400, "invalid_fields", fields, { fieldErrors: validation.fieldErrors });

    if (honeypotFilled(form)) {
      log({ outcome: "dropped", reason: "honeypot" });
      return succeed(request);
    }

    if (config.botChecks.enabled) {
      const verdict = await botChecks.verify(form, client);
      if (!verdict.ok) {
        const cut = await countRefusal(client);
        if (cut) return cut;
        log({ outcome: "unconfirmed", problem: verdict.problem });
        const body: ContactFailure = {
          ok: false,
          status: 200,
          reason: "unconfirmed",
          fields,
          confirmation: verdict.token ?? botChecks.confirmation(client),
        };
        return { kind: "failure", status: 200, headers: NOT_KEPT, data: body };
      }
    }

    const refusal = await guards.check(request, validation.message, client);
    if (refusal) {
      const { status, reason, ...extra } = refusal;
      return fail(client, status, reason, fields, extra);
    }

    const { name, email, subject, message } = validation.message;
    const params = { name, from_email: email, subject, message, to_name: toName };
    const { score, signals } = await spamScore({
      message: validation.message,
      request,
      client,
      requestSignals: config.botChecks.enabled,
      sentOrigin: context.sentOrigin === true,
    });
    if (score >= config.spamThreshold) {
      return keep(
        request,
        client,
        fields,
        config.mail.spamDir,
        params,
        { reason: "suspected_spam", signals },
        () => guards.mayKeepSpam(client),
      );
    }
    if (config.mail.mode === "relay" && !(await guards.mayMail())) {
      return keep(
        request,
        client,
        fields,
        config.mail.undeliveredDir,
        params,
        { reason: "over_daily_limit" },
        () => guards.mayKeep(client),
      );
    }

    const sent = await transport(params, () => guards.mayKeep(client));
    if (!sent.ok) {
      // Only a failure newly kept for the owner gives the unit back (decision 024).
      if (sent.reason !== "not_kept" && !sent.repost) await guards.refund(client);
      return fail(client, sent.status, sent.reason, fields);
    }
    return succeed(request);
  };
}

// The flash only says "sent", signed so no one can forge it (decision 018).
type ContactFlash = {
  commit(request: Request): Promise<string>;
  /** Reads it once; `headers` clears the cookie and must be sent with the loader's answer. */
  read(request: Request): Promise<{ sent: boolean; headers: Headers }>;
};

export function createContactFlash(secret: string): ContactFlash {
  const cookie = createCookie("contact_flash", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: 60,
    secrets: [secret],
  });

  return {
    commit: (request) => cookie.serialize("sent", { secure: cameOverHttps(request) }),
    async read(request) {
      const headers = new Headers();
      const cookieHeader = request.headers.get("Cookie");
      if (!cookieHeader?.includes("contact_flash=")) return { sent: false, headers };
      // A forged value is left to expire: clearing it would stop the page being kept (decision 027).
      if ((await cookie.parse(cookieHeader)) !== "sent") return { sent: false, headers };
      headers.append("Set-Cookie", await cookie.serialize("", { maxAge: 0, secure: cameOverHttps(request) }));
      return { sent: true, headers };
    },
  };
}
