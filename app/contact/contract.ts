// What the contact form and its action agree on: field names and bounds, the
// honeypot, the outcome texts and the failure answer. No zod here, so the
// page can load this at once and the validation schema only when needed.
import { site } from "~/content/site";

export const CONTACT_FIELDS = ["name", "email", "subject", "message"] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

export const FIELD_BOUNDS = {
  name: 100,
  email: 254,
  subject: 200,
  message: 5000,
} as const satisfies Record<ContactField, number>;

/** Hidden field that people never see; bots that fill it get a fake success. */
export const HONEYPOT_FIELD = "website";

export type ContactFields = Record<ContactField, string>;
export type FieldErrors = Partial<Record<ContactField, string>>;

export const OUTCOME_TEXT = {
  sent: {
    title: "Message Sent!",
    description: "Thank you for your message. I'll get back to you soon!",
  },
  failed: {
    title: "Error Sending Message",
    description: "There was an issue sending your message. Please try again or contact me directly.",
  },
} as const;

/** Why a submission was refused or failed; logged and shown to the browser's console. */
export type ContactFailureReason =
  | "payload_too_large"
  | "unsupported_media_type"
  | "cross_site"
  | "invalid_fields"
  | "blocklisted"
  | "rate_limited"
  | "headless_browser"
  | "upstream_rejected"
  | "upstream_error"
  | "upstream_unreachable"
  /** The connection broke once the request may have been written. */
  | "upstream_dropped"
  | "upstream_timeout"
  | "outbox_write_failed"
  /** The provider did not take it and it could not be kept for the owner either. */
  | "not_kept"
  /** Browser only: the action's answer never arrived or could not be read. */
  | "network_error";

/** What the action returns when the message was not sent (with its HTTP status). */
export type ContactFailure = {
  ok: false;
  status: number;
  reason: ContactFailureReason;
  /** What the visitor typed, so the form can show it again. */
  fields: ContactFields;
  fieldErrors?: FieldErrors;
  /**
   * With 429: in how many minutes, rounded up, this client may send again, as
   * the visitor reads it (the Retry-After header has the seconds).
   */
  retryAfterMinutes?: number;
};

/**
 * How a submission ended, as the form shows it, with or without JavaScript:
 * the page rendered after a plain post, or the fetcher's answer.
 */
export type ContactOutcome = { ok: true } | ContactFailure;

/** The title and text the visitor reads for an outcome. */
export function outcomeText(outcome: ContactOutcome): { title: string; description: string } {
  if (outcome.ok) return OUTCOME_TEXT.sent;
  const { title } = OUTCOME_TEXT.failed;
  if (outcome.reason === "payload_too_large") {
    const limit = FIELD_BOUNDS.message.toLocaleString("en");
    return {
      title,
      description: `Your message is too long: it may have at most ${limit} characters. Please shorten it and send it again.`,
    };
  }
  if (outcome.reason === "not_kept") {
    return {
      title,
      description: `Your message could not be sent, and it could not be kept to send later. Please write to me at ${site.contact.email}.`,
    };
  }
  if (outcome.reason === "rate_limited" && outcome.retryAfterMinutes) {
    const minutes = outcome.retryAfterMinutes;
    return {
      title,
      description: `You have sent several messages in a short time. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"} or contact me directly.`,
    };
  }
  return OUTCOME_TEXT.failed;
}
