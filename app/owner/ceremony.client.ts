// The passkey ceremonies in the browser (@simplewebauthn/browser): the one part of the owner's page that needs
// JavaScript. Each step posts a form to /owner/passkey and reads its JSON answer.
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";

async function step(fields: Record<string, string>): Promise<Record<string, unknown>> {
  const answer = await fetch("/owner/passkey", { method: "POST", body: new URLSearchParams(fields) });
  const body = (await answer.json().catch(() => ({}))) as Record<string, unknown>;
  if (!answer.ok)
    throw new Error(typeof body.error === "string" ? body.error : `The server answered ${answer.status}.`);
  return body;
}

/** Registers a passkey on this device with a one-time link's token; where to go, signed in. */
export async function enrol(token: string): Promise<string> {
  const { options } = await step({ step: "enrol_options", token });
  const response = await startRegistration({
    optionsJSON: options as Parameters<typeof startRegistration>[0]["optionsJSON"],
  });
  return String((await step({ step: "enrol", response: JSON.stringify(response) })).location);
}

export async function signIn(): Promise<string> {
  const { options } = await step({ step: "sign_in_options" });
  const response = await startAuthentication({
    optionsJSON: options as Parameters<typeof startAuthentication>[0]["optionsJSON"],
  });
  return String((await step({ step: "sign_in", response: JSON.stringify(response) })).location);
}

/** A browser's refusal in the owner's words: cancelled, timed out or not supported. */
export function ceremonyError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "NotAllowedError") return "The passkey prompt was closed or timed out. Try again.";
  return error.message;
}
