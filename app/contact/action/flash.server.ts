// The one-time "sent" after a successful post: a signed cookie, so no one can forge it (decision 018).
import { createCookie } from "@remix-run/node";
import { cameOverHttps } from "~/lib/https.server";

export type ContactFlash = {
  commit(request: Request): Promise<string>;
  /** Reads it once; `headers` clears the cookie and must be sent with the loader's answer. */
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
      // A forged value is left to expire: clearing it would stop the page being kept (decision 027).
      if ((await cookie.parse(cookieHeader)) !== "sent") return { sent: false, headers };
      headers.append("Set-Cookie", await cookie.serialize("", { maxAge: 0, secure: cameOverHttps(request) }));
      return { sent: true, headers };
    },
  };
}
