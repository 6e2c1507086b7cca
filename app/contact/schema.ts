// Shared by the browser and the server: one source for the contact form's
// rules and their messages. zod/mini keeps the browser cost small.
import * as z from "zod/mini";
import { FIELD_BOUNDS, type ContactField, type FieldErrors } from "./contract";

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

export type ContactValidation =
  { ok: true; message: ContactMessage } | { ok: false; fieldErrors: FieldErrors };

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
