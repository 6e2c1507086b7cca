// Shared by the browser and the server: one source for the contact form's
// rules, messages and outcome texts. zod/mini keeps the browser cost small.
import * as z from "zod/mini";

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

// Name and subject end up in mail headers and one-line template slots.
const NO_CONTROL_CHARS = /^[^\p{Cc}]*$/u;

function requiredText(field: ContactField, label: string, required: string) {
  return z.string({ error: required }).check(
    // Browsers submit textarea line breaks as CRLF but count them as one
    // character in the field: count them the same way here.
    z.overwrite((value) => value.replace(/\r\n?/g, "\n")),
    z.trim(),
    z.minLength(1, required),
    z.maxLength(FIELD_BOUNDS[field], `${label} must be at most ${FIELD_BOUNDS[field]} characters.`),
  );
}

export const contactSchema = z.object({
  name: requiredText("name", "Name", "Please enter your name.").check(
    z.regex(NO_CONTROL_CHARS, "Name must be a single line of text."),
  ),
  email: requiredText("email", "Email", "Please enter your email address.").check(
    z.email("Please enter a valid email address."),
  ),
  subject: requiredText("subject", "Subject", "Please enter a subject.").check(
    z.regex(NO_CONTROL_CHARS, "Subject must be a single line of text."),
  ),
  message: requiredText("message", "Message", "Please enter a message."),
});

export type ContactMessage = z.infer<typeof contactSchema>;
export type ContactFields = Record<ContactField, string>;
export type FieldErrors = Partial<Record<ContactField, string>>;

export type ContactValidation =
  | { ok: true; message: ContactMessage }
  | { ok: false; fieldErrors: FieldErrors };

/** Validates raw values; reports the first problem of each field. */
export function validateContact(input: Record<string, unknown>): ContactValidation {
  const result = z.safeParse(contactSchema, input);
  if (result.success) return { ok: true, message: result.data };
  const fieldErrors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path[0] as ContactField;
    fieldErrors[field] ??= issue.message;
  }
  return { ok: false, fieldErrors };
}

export const OUTCOME_TEXT = {
  sent: {
    title: "Message Sent!",
    description: "Thank you for your message. I'll get back to you soon!",
  },
  failed: {
    title: "Error Sending Message",
    description:
      "There was an issue sending your message. Please try again or contact me directly.",
  },
} as const;

/** Why a submission was refused or failed; logged and shown to the browser's console. */
export type ContactFailureReason =
  | "payload_too_large"
  | "unsupported_media_type"
  | "invalid_fields"
  | "blocklisted"
  | "rate_limited"
  | "headless_browser"
  | "upstream_rejected"
  | "upstream_error"
  | "upstream_unreachable"
  | "upstream_timeout"
  | "outbox_write_failed";

/** What the action returns when the message was not sent (with its HTTP status). */
export type ContactFailure = {
  ok: false;
  status: number;
  reason: ContactFailureReason;
  fields: ContactFields;
  fieldErrors?: FieldErrors;
};
