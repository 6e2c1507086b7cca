// The contact form's action (form -> size and type -> schema -> guards -> transport) and its flash.
// Built from explicit parts so tests can run it with their own configuration against a fake provider.
import { createCookie, data, redirect, type ActionFunctionArgs } from "@remix-run/node";
import { cameOverHttps } from "~/lib/https.server";
import { readFormPost } from "~/lib/form-post.server";
import type { AppConfig } from "~/config.server";
import { createGuards, honeypotFilled } from "./guards.server";
import {
  CONTACT_FIELDS,
  type ContactFailure,
  type ContactFailureReason,
  type ContactFields,
  type FieldErrors,
} from "./contract";
import { validateContact } from "./schema";
import { createTransport, logContactEvent, type ContactLogger, type RetryOptions } from "./mail.server";

/** Above any valid form: 5,554 characters of up to 9 percent-encoded bytes (CJK) stay under 50 KB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

export const SUCCESS_REDIRECT = "/#contact";

export type ContactActionOptions = {
  config: AppConfig;
  toName: string;
  flash: ContactFlash;
  log?: ContactLogger;
  retry?: RetryOptions;
};

const EMPTY_FIELDS: ContactFields = { name: "", email: "", subject: "", message: "" };

export function createContactAction({
  config,
  toName,
  flash,
  log = logContactEvent,
  retry,
}: ContactActionOptions) {
  const guards = createGuards(config);
  const transport = createTransport(config.mail, log, retry);

  function fail(
    status: number,
    reason: ContactFailureReason,
    fields: ContactFields,
    { fieldErrors, retryAfterSeconds }: { fieldErrors?: FieldErrors; retryAfterSeconds?: number } = {},
  ) {
    log({ outcome: "refused", status, reason });
    const body: ContactFailure = { ok: false, status, reason, fields };
    if (fieldErrors) body.fieldErrors = fieldErrors;
    if (!retryAfterSeconds) return data(body, { status });
    body.retryAfterMinutes = Math.ceil(retryAfterSeconds / 60);
    return data(body, { status, headers: { "Retry-After": String(retryAfterSeconds) } });
  }

  // A redirect, so a reload never posts again; the flash tells the page it was sent.
  async function succeed(request: Request) {
    return redirect(SUCCESS_REDIRECT, {
      status: 303,
      headers: { "Set-Cookie": await flash.commit(request) },
    });
  }

  return async function contactAction({ request, context }: ActionFunctionArgs) {
    const post = await readFormPost(request, BODY_LIMIT_BYTES);
    if (!post.ok) {
      return fail(
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

    // A form on another site may not send mail in a visitor's name (server/request-checks.ts).
    if (context.crossSite) return fail(403, "cross_site", fields);

    const validation = validateContact(raw);
    if (!validation.ok) return fail(400, "invalid_fields", fields, { fieldErrors: validation.fieldErrors });

    if (honeypotFilled(form)) {
      log({ outcome: "dropped", reason: "honeypot" });
      return succeed(request);
    }

    const refusal = await guards.check(request, validation.message);
    if (refusal) {
      const { status, reason, ...extra } = refusal;
      return fail(status, reason, fields, extra);
    }

    const { name, email, subject, message } = validation.message;
    const params = { name, from_email: email, subject, message, to_name: toName };
    const sent = await transport(params, () => guards.mayKeep(request));
    if (!sent.ok) {
      // Only a failure kept for the owner gives the unit back, so a flood meets the limit (decision 024).
      if (sent.reason !== "not_kept") await guards.refund(request);
      return fail(sent.status, sent.reason, fields);
    }
    return succeed(request);
  };
}

// ---- The flash ----
// It only says "sent", and is signed so no one can make the page claim a message was sent (decision 018).
export type ContactFlash = {
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
      // A forged value is left to expire: clearing it would make the page one that sets a cookie,
      // rendered for every such request instead of served as kept (decision 027).
      if ((await cookie.parse(cookieHeader)) !== "sent") return { sent: false, headers };
      headers.append("Set-Cookie", await cookie.serialize("", { maxAge: 0, secure: cameOverHttps(request) }));
      return { sent: true, headers };
    },
  };
}
