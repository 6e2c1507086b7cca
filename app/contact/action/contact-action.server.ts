// A post's path: read → validate → honeypot → proof → limits → spam score → send or keep (decision 049).
import type { ActionFunctionArgs } from "@remix-run/node";
import { readFormPost } from "~/lib/form-post.server";
import { clientKey } from "../guard/client.server";
import {
  CONTACT_FIELDS,
  OUTCOME_ID,
  type ContactFailure,
  type ContactFailureReason,
  type ContactFields,
  type FieldErrors,
} from "../form/contract";
import { honeypotFilled, validateContact } from "../form/schema";
import { StoreError } from "../store/store.server";
import type { ContactServices } from "../services.server";

/** Above any valid form: 5,554 characters of up to 9 percent-encoded bytes (CJK) stay under 50 KB. */
export const BODY_LIMIT_BYTES = 64 * 1024;

const SUCCESS_REDIRECT = `/#${OUTCOME_ID}`;

/** What the action decided; action.server.ts alone turns it into Remix's answer (decision 035). */
export type ContactActionOutcome =
  | { kind: "redirect"; status: 303; location: string; headers: Record<string, string> }
  | { kind: "failure"; status: number; headers: Record<string, string>; data: ContactFailure }
  | { kind: "status_page"; status: 429; statusText: string; headers: Record<string, string>; text: string };

const EMPTY_FIELDS: ContactFields = { name: "", email: "", subject: "", message: "" };

export function createContactAction(services: ContactServices) {
  const { config, toName, log, flash, proof, limits, score, delivery } = services;
  return async function contactAction({
    request,
    context,
  }: ActionFunctionArgs): Promise<ContactActionOutcome> {
    const client = clientKey(context.clientAddress);
    const answer = answers(request);
    // A store that fails stops the post wherever it is: the visitor keeps the text (503).
    let typed = EMPTY_FIELDS;
    try {
      const post = await readContactPost(request);
      if (!post.ok)
        return answer.refused(post.status, post.reason, EMPTY_FIELDS, await limits.countRefusal(client));
      const { form, fields } = post;
      typed = fields;
      if (context.crossSite)
        return answer.refused(403, "cross_site", EMPTY_FIELDS, await limits.countRefusal(client));

      const validation = validateContact(post.raw);
      if (!validation.ok) {
        const cut = await limits.countRefusal(client);
        return answer.refused(400, "invalid_fields", fields, cut, { fieldErrors: validation.fieldErrors });
      }

      if (honeypotFilled(form)) {
        log({ outcome: "dropped", reason: "honeypot" });
        return answer.sent();
      }

      let composeSeconds: number | null = null;
      if (config.botChecks.enabled) {
        const verdict = await proof.verify(form, client);
        if (verdict.ok && verdict.via === "proof") composeSeconds = (Date.now() - verdict.issuedAt) / 1_000;
        if (!verdict.ok) {
          const cut = await limits.countRefusal(client);
          if (cut) return answer.tooManyRefusals(cut);
          return answer.confirm(verdict.problem, verdict.token ?? proof.confirmation(client), fields);
        }
      }

      const admitted = await limits.admit(request, validation.message, client);
      if ("refusal" in admitted) {
        const { status, reason, ...extra } = admitted.refusal;
        return answer.refused(status, reason, fields, await limits.countRefusal(client), extra);
      }

      const { name, email, subject, message } = validation.message;
      const params = { name, from_email: email, subject, message, to_name: toName };
      const spam = await score({
        message: validation.message,
        request,
        client,
        requestSignals: config.botChecks.enabled,
        sentOrigin: context.sentOrigin === true,
        composeSeconds,
      });
      if (spam.score >= config.spamThreshold) {
        const kept = await delivery.keepAsSpam(params, spam.signals, admitted);
        return kept ? answer.sent() : answer.refused(503, "not_kept", fields, 0);
      }

      const sent = await delivery.send(params, admitted);
      return sent.ok ? answer.sent() : answer.refused(sent.status, sent.reason, fields, 0);
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      return answer.refused(503, "not_kept", typed, 0);
    }
  };

  function answers(request: Request) {
    const NOT_STORED = { "Cache-Control": "private, no-store" };
    return {
      async sent(): Promise<ContactActionOutcome> {
        const headers = { "Set-Cookie": await flash.commit(request) };
        return { kind: "redirect", status: 303, location: SUCCESS_REDIRECT, headers };
      },
      refused(
        status: number,
        reason: ContactFailureReason,
        fields: ContactFields,
        cut: number,
        { fieldErrors, retryAfterSeconds }: { fieldErrors?: FieldErrors; retryAfterSeconds?: number } = {},
      ): ContactActionOutcome {
        if (cut) return this.tooManyRefusals(cut);
        log({ outcome: "refused", status, reason });
        const body: ContactFailure = { ok: false, status, reason, fields };
        if (fieldErrors) body.fieldErrors = fieldErrors;
        if (!retryAfterSeconds) return { kind: "failure", status, headers: NOT_STORED, data: body };
        body.retryAfterMinutes = Math.ceil(retryAfterSeconds / 60);
        const headers = { ...NOT_STORED, "Retry-After": String(retryAfterSeconds) };
        return { kind: "failure", status, headers, data: body };
      },
      confirm(problem: string, confirmation: string, fields: ContactFields): ContactActionOutcome {
        log({ outcome: "unconfirmed", problem });
        const body: ContactFailure = { ok: false, status: 200, reason: "unconfirmed", fields, confirmation };
        return { kind: "failure", status: 200, headers: NOT_STORED, data: body };
      },
      tooManyRefusals(wait: number): ContactActionOutcome {
        log({ outcome: "refused", status: 429, reason: "too_many_refusals" });
        return {
          kind: "status_page",
          status: 429,
          statusText: "Too Many Requests",
          headers: { ...NOT_STORED, "Retry-After": String(wait) },
          text: `Too many refused messages: please wait ${Math.ceil(wait / 60)} minutes.`,
        };
      },
    };
  }
}

type ContactPost =
  | { ok: true; form: FormData; raw: Record<string, unknown>; fields: ContactFields }
  | { ok: false; status: number; reason: "payload_too_large" | "unsupported_media_type" };

async function readContactPost(request: Request): Promise<ContactPost> {
  const post = await readFormPost(request, BODY_LIMIT_BYTES);
  if (!post.ok) {
    const reason = post.status === 413 ? "payload_too_large" : "unsupported_media_type";
    return { ok: false, status: post.status, reason };
  }
  const raw: Record<string, unknown> = {};
  const fields = { ...EMPTY_FIELDS };
  for (const field of CONTACT_FIELDS) {
    const values = post.form.getAll(field);
    raw[field] = values.length === 1 ? values[0] : values.length === 0 ? undefined : values;
    const firstText = values.find((value) => typeof value === "string");
    fields[field] = typeof firstText === "string" ? firstText : "";
  }
  return { ok: true, form: post.form, raw, fields };
}
