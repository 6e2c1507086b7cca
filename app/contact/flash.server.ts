// One-time outcome carried across the redirect that follows a successful post,
// so the page can say "Message Sent!" (also without JavaScript) and a reload
// never posts again. It only says "sent": nothing secret or personal. It is
// signed, so no one can make the page claim a message was sent.
import { createCookie } from "@remix-run/node";
import { cameOverHttps } from "~/lib/https.server";

export type ContactFlash = {
  /** Set-Cookie value that says "sent" to the next page load. */
  commit(request: Request): Promise<string>;
  /**
   * Reads it once. `headers` clears the cookie and must be sent with the
   * loader's answer; it is empty when there was no "sent" to read.
   */
  read(request: Request): Promise<{ sent: boolean; headers: Headers }>;
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
    commit: (request) => cookie.serialize("sent", { secure: cameOverHttps(request) }),
    async read(request) {
      const headers = new Headers();
      const cookieHeader = request.headers.get("Cookie");
      if (!cookieHeader?.includes("contact_flash=")) return { sent: false, headers };
      // A forged value reads as not sent and is left to expire (Max-Age 60):
      // clearing it would make the page one that sets a cookie, rendered for
      // every such request instead of served as kept.
      if ((await cookie.parse(cookieHeader)) !== "sent") return { sent: false, headers };
      headers.append("Set-Cookie", await cookie.serialize("", { maxAge: 0, secure: cameOverHttps(request) }));
      return { sent: true, headers };
    },
  };
}
