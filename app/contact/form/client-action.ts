// The contact action as the browser calls it: every answer, even a lost one, becomes a ContactOutcome.
import type { ClientActionFunctionArgs } from "@remix-run/react";
import { CONTACT_FIELDS, type ContactFailure, type ContactFields, type ContactOutcome } from "./contract";

export async function contactClientAction({
  request,
  serverAction,
}: ClientActionFunctionArgs): Promise<ContactOutcome> {
  const form = await request.clone().formData();
  try {
    return await serverAction<ContactFailure>();
  } catch (error) {
    // Single fetch throws the action's redirect as a Response (decision 002).
    if (error instanceof Response && error.status >= 300 && error.status < 400) return { ok: true };
    const fields = Object.fromEntries(
      CONTACT_FIELDS.map((field) => [field, String(form.get(field) ?? "")]),
    ) as ContactFields;
    return { ok: false, status: 0, reason: "network_error", fields } satisfies ContactFailure;
  }
}
