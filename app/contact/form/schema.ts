// The contact form's rules and messages, shared by the browser and the server (decision 019).
import * as z from "zod/mini";
import { FIELD_BOUNDS, HONEYPOT_FIELD, type ContactField, type FieldErrors } from "./contract";

const ONE_LINE = /^[^\n\v\f\r\u0085\u2028\u2029]*$/u;
const NO_CONTROLS = /^\P{Cc}*$/u;
const MESSAGE_CHARS = /^(?:[\t\n]|\P{Cc})*$/u;
// Embeddings, overrides and isolates reorder what a mail client shows ("Invoice \u202Efdp.exe").
const NO_BIDI_CONTROLS = /^[^\u202A-\u202E\u2066-\u2069]*$/u;
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]*$/u;
// No hidden format characters, bar the joiners of scripts and emoji and a flag's tags (decision 042).
const NO_HIDDEN_FORMAT =
  /^(?:\p{L}\p{M}*[\u200C\u200D](?=\p{L})|\p{Extended_Pictographic}\p{Emoji_Modifier}?\uFE0F?\u200D(?=\p{Extended_Pictographic})|\u{1F3F4}[\u{E0020}-\u{E007E}]+\u{E007F}|\P{Cf})*$/u;

function requiredText(field: ContactField, label: string, required: string) {
  return z.string({ error: required }).check(
    // Browsers submit line breaks as CRLF but count them as one character.
    z.overwrite((value) => value.replace(/\r\n?|[\u2028\u2029]/g, "\n")),
    z.trim(),
    z.refine((value) => !INVISIBLE_ONLY.test(value), required),
    z.maxLength(FIELD_BOUNDS[field], `${label} must be at most ${FIELD_BOUNDS[field]} characters.`),
    z.regex(NO_BIDI_CONTROLS, `${label} must not contain text-direction control characters.`),
  );
}

function oneLineText(field: ContactField, label: string, required: string) {
  return requiredText(field, label, required).check(
    z.regex(ONE_LINE, `${label} must be a single line of text.`),
    z.regex(NO_CONTROLS, `${label} must not contain control characters.`),
    z.regex(NO_HIDDEN_FORMAT, `${label} must not contain invisible characters.`),
  );
}

const contactSchema = z.object({
  name: oneLineText("name", "Name", "Please enter your name."),
  email: requiredText("email", "Email", "Please enter your email address.").check(
    z.email("Please enter a valid email address."),
  ),
  subject: oneLineText("subject", "Subject", "Please enter a subject."),
  message: requiredText("message", "Message", "Please enter a message.").check(
    z.regex(MESSAGE_CHARS, "Message must not contain control characters other than line breaks and tabs."),
  ),
});

export type ContactMessage = z.infer<typeof contactSchema>;

type ContactValidation = { ok: true; message: ContactMessage } | { ok: false; fieldErrors: FieldErrors };

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

export function honeypotFilled(form: FormData): boolean {
  return form.getAll(HONEYPOT_FIELD).some((value) => typeof value !== "string" || value.trim() !== "");
}
