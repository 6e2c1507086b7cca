// The contact form's action: form -> size and type checks -> schema -> guards
// -> transport -> outcome. Built from explicit parts so tests can run it with
// their own configuration against a fake provider.
import { data, redirect, type ActionFunctionArgs } from "@remix-run/node";
import { withSecurityHeaders } from "~/lib/security-headers.server";
import type { AppConfig } from "~/config.server";
import type { RetryOptions } from "./emailjs.server";
import { commitContactFlash } from "./flash.server";
import { createGuards, honeypotFilled } from "./guards.server";
import { logContactEvent, type ContactLogger } from "./log.server";
import {
  CONTACT_FIELDS,
  type ContactFailure,
  type ContactFailureReason,
  type ContactFields,
  type FieldErrors,
} from "./contract";
import { validateContact } from "./schema";
import { createTransport } from "./transport.server";

/**
 * Larger than any valid form: 5,554 characters at most, each up to 9 bytes
 * once percent-encoded (CJK), stays under 50 KB; so a visitor's valid text is
 * never refused as too large.
 */
export const BODY_LIMIT_BYTES = 64 * 1024;

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/** Where the page lands after a successful post; the flash cookie says what happened. */
export const SUCCESS_REDIRECT = "/#contact";

export type ContactActionOptions = {
  config: AppConfig;
  /** The site owner's name, sent as the template's `to_name`. */
  toName: string;
  log?: ContactLogger;
  retry?: RetryOptions;
};

const EMPTY_FIELDS: ContactFields = { name: "", email: "", subject: "", message: "" };

/** Reads at most `limit` bytes; null when the body is larger, whatever Content-Length said. */
async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array<ArrayBuffer> | null> {
  if (!body) return new Uint8Array();
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
}

export function createContactAction({ config, toName, log = logContactEvent, retry }: ContactActionOptions) {
  const guards = createGuards(config);
  const transport = createTransport(config.mail, log, retry);

  function fail(
    status: number,
    reason: ContactFailureReason,
    fields: ContactFields,
    fieldErrors?: FieldErrors,
  ) {
    log({ outcome: "refused", status, reason });
    const body: ContactFailure = { ok: false, status, reason, fields };
    if (fieldErrors) body.fieldErrors = fieldErrors;
    return data(body, { status });
  }

  async function succeed() {
    // Remix sends a document post's redirect past every entry hook: add the headers here.
    return withSecurityHeaders(
      redirect(SUCCESS_REDIRECT, {
        status: 303,
        headers: { "Set-Cookie": await commitContactFlash("sent") },
      }),
    );
  }

  return async function contactAction({ request }: ActionFunctionArgs) {
    const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (!FORM_TYPES.has(mediaType)) return fail(415, "unsupported_media_type", EMPTY_FIELDS);

    const declared = Number(request.headers.get("content-length"));
    if (declared > BODY_LIMIT_BYTES) return fail(413, "payload_too_large", EMPTY_FIELDS);
    const bytes = await readLimited(request.body, BODY_LIMIT_BYTES);
    if (!bytes) return fail(413, "payload_too_large", EMPTY_FIELDS);

    // A malformed body reads as an empty form, which the schema then refuses.
    const form = await new Response(bytes, { headers: { "Content-Type": request.headers.get("content-type")! } })
      .formData()
      .catch(() => new FormData());

    const raw: Record<string, unknown> = {};
    const fields = { ...EMPTY_FIELDS };
    for (const field of CONTACT_FIELDS) {
      const values = form.getAll(field);
      // A duplicated field is not a single text: the schema refuses it.
      raw[field] = values.length === 1 ? values[0] : values.length === 0 ? undefined : values;
      const firstText = values.find((value) => typeof value === "string");
      fields[field] = typeof firstText === "string" ? firstText : "";
    }

    const validation = validateContact(raw);
    if (!validation.ok) return fail(400, "invalid_fields", fields, validation.fieldErrors);

    // A bot gets the normal success and nothing is sent.
    if (honeypotFilled(form)) {
      log({ outcome: "dropped", reason: "honeypot" });
      return succeed();
    }

    const refusal = await guards(request, validation.message);
    if (refusal) return fail(refusal.status, refusal.reason, fields);

    const { name, email, subject, message } = validation.message;
    const sent = await transport({ name, from_email: email, subject, message, to_name: toName });
    if (!sent.ok) return fail(sent.status, sent.reason, fields);
    return succeed();
  };
}
