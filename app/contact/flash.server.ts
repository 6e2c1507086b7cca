// One-time outcome carried across the redirect that follows a successful post,
// so the page can say "Message Sent!" (also without JavaScript) and a reload
// never posts again. It only says "sent": nothing secret or personal. It is
// signed, so no one can make the page claim a message was sent.
import { createCookie } from "@remix-run/node";
import { cameOverHttps } from "~/lib/https.server";

export type ContactOutcome = "sent";

export type ContactFlash = {
  /** Set-Cookie value that carries the outcome to the next page load. */
  commit(request: Request, outcome: ContactOutcome): Promise<string>;
  /**
   * Reads the outcome once. `headers` clears the cookie and must be sent with
   * the loader's answer; it is empty when there was nothing to read.
   */
  read(request: Request): Promise<{ outcome: ContactOutcome | null; headers: Headers }>;
};

export function createContactFlash(secret: string): ContactFlash {
  const cookie = createCookie("contact_flash", {
    httpOnly: true,
    sameSite: "lax",
    path: "/",
    maxAge: 60,
    secrets: [secret],
  });

  return {
    commit: (request, outcome) => cookie.serialize(outcome, { secure: cameOverHttps(request) }),
    async read(request) {
      const headers = new Headers();
      const cookieHeader = request.headers.get("Cookie");
      if (!cookieHeader?.includes("contact_flash=")) return { outcome: null, headers };
      // A forged or stale value reads as null (and is cleared all the same).
      const value: unknown = await cookie.parse(cookieHeader);
      headers.append("Set-Cookie", await cookie.serialize("", { maxAge: 0, secure: cameOverHttps(request) }));
      return { outcome: value === "sent" ? "sent" : null, headers };
    },
  };
}
