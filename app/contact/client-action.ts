// The contact action as the browser calls it (with JavaScript). When the answer
// never arrives or cannot be read — the visitor went offline, a proxy answered
// with its own error page — the form shows the error toast and keeps the
// typed text, instead of the page giving way to the error screen.
import type { ClientActionFunctionArgs } from "@remix-run/react";
import { CONTACT_FIELDS, type ContactFailure, type ContactFields } from "./contract";

export async function contactClientAction({ request, serverAction }: ClientActionFunctionArgs) {
  const form = await request.clone().formData();
  try {
    return await serverAction<ContactFailure>();
  } catch (error) {
    // A redirect (success) is thrown as a Response: the router follows it.
    if (error instanceof Response) throw error;
    const fields = Object.fromEntries(
      CONTACT_FIELDS.map((field) => [field, String(form.get(field) ?? "")]),
    ) as ContactFields;
    // Status 0, as the original mail library reported a network error.
    return { ok: false, status: 0, reason: "network_error", fields } satisfies ContactFailure;
  }
}
