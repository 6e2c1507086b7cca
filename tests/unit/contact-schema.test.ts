// The shared contact schema: bounds at their edges, trimming, line breaks,
// per-field messages, and the field names the page relies on.
import { describe, expect, it } from "vitest";
import { CONTACT_FIELDS, FIELD_BOUNDS, HONEYPOT_FIELD } from "~/contact/contract";
import { validateContact } from "~/contact/schema";

const VALID = { name: "Zoë Ångström", email: "zoe@example.org", subject: "Hi", message: "Hello there" };

describe("validateContact", () => {
  it("accepts a valid message and returns it trimmed", () => {
    expect(
      validateContact({ name: " 李小龙 ", email: " a@b.co ", subject: "\tHi ", message: "\n Hello \n" }),
    ).toEqual({
      ok: true,
      message: { name: "李小龙", email: "a@b.co", subject: "Hi", message: "Hello" },
    });
  });

  it("counts a CRLF line break as one character, as the browser's maxlength does", () => {
    const lines = "a\r\n".repeat(2000) + "b".repeat(1000); // 7,000 code units, 5,000 characters once "\n"
    const result = validateContact({ ...VALID, message: lines });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.message.message).toBe("a\n".repeat(2000).concat("b".repeat(1000)));
  });

  it.each(CONTACT_FIELDS.filter((field) => field !== "email"))(
    "%s: exactly at the bound passes, one more fails",
    (field) => {
      const bound = FIELD_BOUNDS[field];
      expect(validateContact({ ...VALID, [field]: "x".repeat(bound) }).ok).toBe(true);
      const capitalised = field[0]!.toUpperCase() + field.slice(1);
      expect(validateContact({ ...VALID, [field]: "x".repeat(bound + 1) })).toEqual({
        ok: false,
        fieldErrors: { [field]: `${capitalised} must be at most ${bound} characters.` },
      });
    },
  );

  it("email: 254 characters pass, 255 fail", () => {
    const local = "a".repeat(64);
    const at254 = `${local}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`;
    expect(at254).toHaveLength(254);
    expect(validateContact({ ...VALID, email: at254 }).ok).toBe(true);
    expect(validateContact({ ...VALID, email: `a${at254}` })).toMatchObject({
      ok: false,
      fieldErrors: { email: "Email must be at most 254 characters." },
    });
  });

  it.each([
    "plainaddress",
    "a@b",
    "@example.com",
    "a b@example.com",
    "a@example..com",
    "a@exa mple.com",
    "a@b.co\r\nBcc: c@d.co",
  ])("refuses the address %j", (email) => {
    expect(validateContact({ ...VALID, email })).toEqual({
      ok: false,
      fieldErrors: { email: "Please enter a valid email address." },
    });
  });

  it.each(["first.last+tag@example.co.uk", "o'brien@example.ie", "x@sub.domain.example"])(
    "accepts the address %j",
    (email) => {
      expect(validateContact({ ...VALID, email }).ok).toBe(true);
    },
  );

  it("one message per field, the first problem only, for every kind of missing", () => {
    expect(validateContact({ name: undefined, email: 42, subject: ["a", "b"], message: null })).toEqual({
      ok: false,
      fieldErrors: {
        name: "Please enter your name.",
        email: "Please enter your email address.",
        subject: "Please enter a subject.",
        message: "Please enter a message.",
      },
    });
  });

  it("keeps line breaks in the message but not in the name or subject", () => {
    expect(validateContact({ ...VALID, message: "line 1\nline 2\ttabbed" }).ok).toBe(true);
    expect(validateContact({ ...VALID, name: "a\nb", subject: "a\u0000b" })).toEqual({
      ok: false,
      fieldErrors: {
        name: "Name must be a single line of text.",
        subject: "Subject must be a single line of text.",
      },
    });
  });
});

describe("names the page relies on", () => {
  it("the honeypot is not one of the real fields", () => {
    expect(CONTACT_FIELDS).not.toContain(HONEYPOT_FIELD);
  });
});
