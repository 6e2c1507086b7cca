// What the contact form and its action agree on; no zod here, so the page can load it at once.
import { site } from "~/content/site";

export const CONTACT_FIELDS = ["name", "email", "subject", "message"] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

export const FIELD_BOUNDS = {
  name: 100,
  email: 254,
  subject: 200,
  message: 5000,
} as const satisfies Record<ContactField, number>;

export const HONEYPOT_FIELD = "website";
export const PROOF_FIELD = "altcha";
export const CONFIRMATION_FIELD = "confirmation";
export const OUTCOME_ID = "contact-outcome";

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
  | "upstream_dropped"
  | "upstream_timeout"
  | "provider_refusing"
  | "refused_by_provider"
  | "outbox_write_failed"
  | "not_kept"
  | "unconfirmed"
  | "network_error";

export type ContactFailure = {
  ok: false;
  status: number;
  reason: ContactFailureReason;
  fields: ContactFields;
  fieldErrors?: FieldErrors;
  retryAfterMinutes?: number;
  confirmation?: string;
};

/** 5000 → "5,000", as `toLocaleString("en")` writes it, without loading ICU's number formats at page load. */
const withCommas = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ",");

const SAVED_TO_SEND = "Your message is saved and will be sent when the mail service is back.";
const FAILURE_DETAIL: Partial<Record<ContactFailureReason, string>> = {
  payload_too_large: `Your message is too long: it may have at most ${withCommas(FIELD_BOUNDS.message)} characters.`,
  not_kept: `It could not be kept to send later: please write to me at ${site.contact.email}.`,
  refused_by_provider: "Your message is saved, and I will read it.",
  upstream_rejected: SAVED_TO_SEND,
  upstream_error: SAVED_TO_SEND,
  upstream_unreachable: SAVED_TO_SEND,
  upstream_dropped: SAVED_TO_SEND,
  upstream_timeout: SAVED_TO_SEND,
  provider_refusing: SAVED_TO_SEND,
};

export type ContactOutcome = { ok: true } | ContactFailure;

type OutcomeText = { title: string; description: string; detail?: string };

export function outcomeText(outcome: ContactOutcome): OutcomeText {
  if (outcome.ok) return OUTCOME_TEXT.sent;
  if (outcome.reason === "unconfirmed") return CONFIRM_TEXT;
  return { ...OUTCOME_TEXT.failed, ...failureDetail(outcome) };
}

export const CONFIRM_TEXT = {
  title: "Please confirm your message",
  description: "To keep spam out, please check your message below and press Send Message again.",
} as const;

function failureDetail(outcome: ContactFailure): { detail?: string } {
  const minutes = outcome.retryAfterMinutes;
  if (outcome.reason === "rate_limited" && minutes) {
    return {
      detail: `You have sent several messages in a short time: please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
    };
  }
  const detail = FAILURE_DETAIL[outcome.reason];
  return detail ? { detail } : {};
}
