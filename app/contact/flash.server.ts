// One-time outcome carried across the redirect that follows a successful post,
// so the page can say "Message Sent!" (also without JavaScript) and a reload
// never posts again. It only says "sent": nothing secret or personal.
import { createCookie } from "@remix-run/node";

export type ContactOutcome = "sent";

const flashCookie = createCookie("contact_flash", {
  httpOnly: true,
  sameSite: "lax",
  path: "/",
  maxAge: 60,
});

/** Set-Cookie value that carries the outcome to the next page load. */
export function commitContactFlash(outcome: ContactOutcome): Promise<string> {
  return flashCookie.serialize(outcome);
}

/**
 * Reads the outcome once. `headers` clears the cookie and must be sent with
 * the loader's answer; it is empty when there was nothing to read.
 */
export async function readContactFlash(
  request: Request,
): Promise<{ outcome: ContactOutcome | null; headers: Headers }> {
  const headers = new Headers();
  const cookieHeader = request.headers.get("Cookie");
  if (!cookieHeader?.includes("contact_flash=")) return { outcome: null, headers };
  const value: unknown = await flashCookie.parse(cookieHeader);
  headers.append("Set-Cookie", await flashCookie.serialize("", { maxAge: 0 }));
  return { outcome: value === "sent" ? "sent" : null, headers };
}
