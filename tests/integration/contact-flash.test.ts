// The one-time "Message Sent!" cookie: signed with SESSION_SECRET, so a
// visitor (or a page on another site) cannot forge it, and Secure over HTTPS.
import { describe, expect, it } from "vitest";
import { createContactFlash } from "~/contact/action/flash.server";

const SECRET = "flash-test-secret-0123456789abcdef";
const flash = createContactFlash(SECRET);

const page = (cookie: string, url = "http://localhost/") => new Request(url, { headers: { Cookie: cookie } });

async function committed(url = "http://localhost/#contact") {
  return flash.commit(new Request(url, { method: "POST" }));
}

describe("the contact flash cookie", () => {
  it("carries 'sent' to the next page once it was committed", async () => {
    const setCookie = await committed();
    expect((await flash.read(page(setCookie.split(";")[0]!))).sent).toBe(true);
  });

  // `Cookie: contact_flash=InNlbnQi` once made any page say "Message Sent!".
  it("ignores an unsigned value, and leaves it to expire", async () => {
    const forged = await flash.read(page("contact_flash=InNlbnQi"));
    expect(forged.sent).toBe(false);
    expect(forged.headers.get("Set-Cookie")).toBeNull();
  });

  it("clears a value it read", async () => {
    const read = await flash.read(page((await committed()).split(";")[0]!));
    expect(read.headers.get("Set-Cookie")).toMatch(/^contact_flash=;.*Max-Age=0/);
  });

  it("ignores a value signed with another secret", async () => {
    const other = createContactFlash("another-secret-0123456789abcdefgh");
    const setCookie = await other.commit(new Request("http://localhost/"));
    expect((await flash.read(page(setCookie.split(";")[0]!))).sent).toBe(false);
  });

  it("is Secure when the request came over HTTPS, and only then", async () => {
    expect(await committed("https://me.example/")).toMatch(/; Secure/);
    expect(await committed("http://localhost/")).not.toMatch(/; Secure/);
    const sent = (await committed("https://me.example/")).split(";")[0]!;
    const cleared = await flash.read(page(sent, "https://me.example/"));
    expect(cleared.headers.get("Set-Cookie")).toMatch(/; Secure/);
  });

  it("is HttpOnly, SameSite=Lax and short-lived", async () => {
    expect(await committed()).toMatch(/^contact_flash=[^;]+; Max-Age=60; Path=\/; HttpOnly; SameSite=Lax$/);
  });
});
