// The shared contact schema: bounds at their edges, trimming, line breaks,
// per-field messages, and the field names the page relies on.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTACT_FIELDS, FIELD_BOUNDS, HONEYPOT_FIELD } from "~/contact/form/contract";
import { validateContact } from "~/contact/form/schema";

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

  it.each(["\u202E", "\u202A", "\u2066", "\u2069"])(
    "text-direction control U+%s is refused in every field that shows as text",
    (control) => {
      const result = validateContact({
        ...VALID,
        name: `Ann ${control}x`,
        subject: `Invoice ${control}fdp.exe`,
        message: `See ${control}this`,
      });
      expect(result).toEqual({
        ok: false,
        fieldErrors: {
          name: "Name must not contain text-direction control characters.",
          subject: "Subject must not contain text-direction control characters.",
          message: "Message must not contain text-direction control characters.",
        },
      });
    },
  );

  // Marks and zero-width characters once passed in the name and subject and reached the owner's terminal.
  it.each([
    ["U+200B zero-width space", "\u200b"],
    ["U+2060 word joiner", "\u2060"],
    ["U+200E left-to-right mark", "\u200e"],
    ["U+200F right-to-left mark", "\u200f"],
    ["U+061C Arabic letter mark", "\u061c"],
    ["U+FEFF zero-width no-break space", "\ufeff"],
    ["U+00AD soft hyphen", "\u00ad"],
    ["U+180E Mongolian vowel separator", "\u180e"],
    ["U+2064 invisible plus", "\u2064"],
    ["U+E0041 tag letter outside a flag", "\u{e0041}"],
    ["U+200D joiner after a Latin letter, before a space", "\u200d"],
    ["U+200C non-joiner after a Latin letter, before a space", "\u200c"],
  ])("%s is refused inside the name and subject, kept in the message", (_name, format) => {
    expect(
      validateContact({
        ...VALID,
        name: `Ada${format} Lovelace`,
        subject: `Hi${format} there`,
        message: `Hello${format} there`,
      }),
    ).toEqual({
      ok: false,
      fieldErrors: {
        name: "Name must not contain invisible characters.",
        subject: "Subject must not contain invisible characters.",
      },
    });
  });

  it.each([
    ["an emoji sequence", "\u{1f469}\u200d\u{1f4bb} Ada"],
    ["a family with two joiners", "\u{1f468}\u200d\u{1f469}\u200d\u{1f467} Lovelaces"],
    ["a skin tone before the joiner", "\u{1f9d1}\u{1f3fd}\u200d\u{1f4bb} Ada"],
    ["a variation selector before the joiner", "\u2764\ufe0f\u200d\u{1f525} Ada"],
    ["a subdivision flag's tags", "\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f} Ada"],
    ["a Persian name's non-joiner", "\u0639\u0644\u06cc\u200c\u0631\u0636\u0627"],
    ["a Devanagari conjunct's joiner after the virama", "\u0915\u094d\u200d\u0937"],
  ])("keeps %s in the name and subject", (_kind, text) => {
    expect(validateContact({ ...VALID, name: text, subject: text })).toMatchObject({
      ok: true,
      message: { name: text, subject: text },
    });
  });

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
    expect(validateContact({ ...VALID, name: "a\nb", subject: "a\rb" })).toEqual({
      ok: false,
      fieldErrors: {
        name: "Name must be a single line of text.",
        subject: "Subject must be a single line of text.",
      },
    });
  });

  // U+2028 and U+2029 once passed the one-line rule.
  it.each(["\u2028", "\u2029", "\u0085", "\v", "\f"])(
    "refuses the line break %j in the name and subject",
    (brk) => {
      expect(validateContact({ ...VALID, name: `Ada${brk}Bcc: x`, subject: `Hi${brk}there` })).toEqual({
        ok: false,
        fieldErrors: {
          name: "Name must be a single line of text.",
          subject: "Subject must be a single line of text.",
        },
      });
    },
  );

  it.each(["\u0000", "\u0007", "\t", "\u001b", "\u007f", "\u009b"])(
    "refuses the control character %j inside the name and subject",
    (control) => {
      expect(validateContact({ ...VALID, name: `A${control}da`, subject: `H${control}i` })).toEqual({
        ok: false,
        fieldErrors: {
          name: "Name must not contain control characters.",
          subject: "Subject must not contain control characters.",
        },
      });
    },
  );

  // NUL and other controls were once relayed inside the message.
  it.each(["\u0000", "\u0008", "\u001b", "\u007f", "\u0085", "\u009b"])(
    "refuses the control character %j in the message",
    (control) => {
      expect(validateContact({ ...VALID, message: `Hello${control}there` })).toEqual({
        ok: false,
        fieldErrors: {
          message: "Message must not contain control characters other than line breaks and tabs.",
        },
      });
    },
  );

  it("reads line and paragraph separators in the message as line breaks", () => {
    expect(validateContact({ ...VALID, message: "one\u2028two\u2029three" })).toMatchObject({
      ok: true,
      message: { message: "one\ntwo\nthree" },
    });
  });

  // A name of only a zero-width space was once accepted.
  it.each([
    ["zero-width space", "\u200b"],
    ["zero-width joiner and BOM", "\u200d\ufeff"],
    ["Hangul fillers", "\u3164\u115f\u1160\uffa0"],
    ["soft hyphen and word joiner", "\u00ad\u2060"],
    ["bidi marks", "\u200e\u200f\u202e"],
    ["blank Braille pattern", "\u2800"],
    ["ideographic and no-break spaces", "\u3000\u00a0\u2007"],
    ["variation selectors", "\ufe0f\u{e0100}"],
  ])("counts a field of only %s as empty", (_kind, invisible) => {
    expect(
      validateContact({ name: invisible, email: invisible, subject: ` ${invisible} `, message: invisible }),
    ).toEqual({
      ok: false,
      fieldErrors: {
        name: "Please enter your name.",
        email: "Please enter your email address.",
        subject: "Please enter a subject.",
        message: "Please enter a message.",
      },
    });
  });

  it("keeps invisible characters that sit beside visible text in the message", () => {
    expect(validateContact({ ...VALID, message: "Zo\u00eb\u200d \u200b\u2060\u200f\ufeff here" }).ok).toBe(
      true,
    );
  });
});

describe("validateContact properties", () => {
  const INVISIBLE = [
    "\u200b",
    "\u200d",
    "\ufeff",
    "\u3164",
    "\u115f",
    "\u00ad",
    "\u2060",
    "\u2800",
    " ",
    "\u3000",
  ];
  const invisibleOnly = fc.string({ unit: fc.constantFrom(...INVISIBLE), maxLength: 20 });
  const anyText = fc.string({ unit: "binary", maxLength: 120 });

  it("a field of only invisible characters always reads as empty", () => {
    fc.assert(
      fc.property(invisibleOnly, fc.constantFrom(...CONTACT_FIELDS), (value, field) => {
        const result = validateContact({ ...VALID, [field]: value });
        expect(result.ok).toBe(false);
        if (!result.ok) expect(Object.keys(result.fieldErrors)).toEqual([field]);
      }),
    );
  });

  it("whatever is accepted has no control character but tab and newline, and no line break or hidden format character in one-line fields", () => {
    fc.assert(
      fc.property(anyText, anyText, anyText, (name, subject, message) => {
        const result = validateContact({ ...VALID, name, subject, message });
        if (!result.ok) return;
        for (const oneLine of [result.message.name, result.message.subject]) {
          expect(oneLine).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
          // Of the format characters, only joiners and a flag's tags.
          expect(oneLine).not.toMatch(/[^\P{Cf}\u200d\u200c\u{e0020}-\u{e007f}]/u);
        }
        expect(result.message.message).not.toMatch(/[^\P{Cc}\t\n]|[\u2028\u2029\r]/u);
      }),
      { numRuns: 2000 },
    );
  });

  it("every refusal is one of the field's own messages", () => {
    fc.assert(
      fc.property(anyText, anyText, (name, message) => {
        const result = validateContact({ ...VALID, name, message });
        if (result.ok) return;
        const { name: nameError = "Name ok.", message: messageError = "Message ok." } = result.fieldErrors;
        expect(nameError).toMatch(/^(Please enter your name\.|Name .+\.)$/);
        expect(messageError).toMatch(/^(Please enter a message\.|Message .+\.)$/);
      }),
    );
  });
});

describe("names the page relies on", () => {
  it("the honeypot is not one of the real fields", () => {
    expect(CONTACT_FIELDS).not.toContain(HONEYPOT_FIELD);
  });
});
