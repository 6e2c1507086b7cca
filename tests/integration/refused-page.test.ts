// A refused post without JavaScript gets the page with the form filled in
// again. That page comes from a template rendered once per shape, with each
// response's typed text put in its spots (app/html-cache/typed-text.server.ts).
// Against the production server, for arbitrary text: each spot holds what
// React itself writes for that text, the data the page hydrates with decodes
// to exactly what was typed, and nothing else on the page changes.
import fc from "fast-check";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { decode } from "turbo-stream";
import { describe, expect, it } from "vitest";
import { CONTACT_FIELDS, type ContactFields } from "~/contact/contract";
import { BROWSER_HEADERS } from "../support/contact";
import { useAppServer } from "../support/use-app-server";

const server = useAppServer();

type Refused = { status: number; html: string; nonce: string };

async function refuse(fields: ContactFields, encoding: string): Promise<Refused> {
  const res = await fetch(`${server.app.url}/?index`, {
    method: "POST",
    headers: {
      ...BROWSER_HEADERS,
      "Accept-Encoding": encoding,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ ...fields, website: "" }),
  });
  const nonce = /'nonce-([^']+)'/.exec(res.headers.get("Content-Security-Policy") ?? "")![1]!;
  return { status: res.status, html: await res.text(), nonce };
}

/** What the server read: the text as the form encoding carries it (a lone surrogate becomes U+FFFD). */
const asPosted = (fields: ContactFields) =>
  Object.fromEntries(new URLSearchParams(new URLSearchParams(fields).toString())) as ContactFields;

/** Where the page writes each field, and what React writes there for a value. */
const SPOTS = {
  input: (field: string) => new RegExp(`<input id="contact-${field}"[^>]*? value="([^"]*)"`),
  textarea: (field: string) => new RegExp(`<textarea id="contact-${field}"[^>]*>([^<]*)</textarea>`),
};
const reactInput = (value: string) =>
  /value="([^"]*)"/.exec(
    renderToStaticMarkup(createElement("input", { defaultValue: value, readOnly: true })),
  )![1];
const reactTextarea = (value: string) =>
  /<textarea>([^<]*)<\/textarea>/.exec(
    renderToStaticMarkup(createElement("textarea", { defaultValue: value })),
  )![1];

function spotsOf(html: string) {
  const spots: Record<string, string> = {};
  for (const field of ["name", "email", "subject"]) spots[field] = SPOTS.input(field).exec(html)![1]!;
  spots.message = SPOTS.textarea("message").exec(html)![1]!;
  return spots;
}

/** The page with its nonce and each field's spot taken out: what must not depend on the typed text. */
function frame(page: Refused) {
  let html = page.html.split(page.nonce).join("NONCE");
  for (const field of ["name", "email", "subject"])
    html = html.replace(SPOTS.input(field), `<input id="contact-${field}" …`);
  html = html.replace(SPOTS.textarea("message"), "<textarea …>");
  return html.replace(/window\.__remixContext\.streamController\.enqueue\(.*?\);/gs, "enqueue(…);");
}

const HANDOFF = /^window\.__remixContext\.streamController\.enqueue\(("(?:[^"\\]|\\.)*")\);$/s;

/**
 * The data the page hydrates with, decoded as Remix's client decodes it. The
 * scripts are cut where a browser ends them (at the first "</script"), and
 * like Remix's own they hold no "<" or line separator, so no typed text can
 * end one early or turn the parser's state.
 */
async function hydrationData(html: string) {
  const scripts = [...html.matchAll(/<script\b[^>]*>(.*?)<\/script/gis)].map((m) => m[1]!);
  const handoff = scripts.filter((content) => content.includes("__remixContext.streamController.enqueue"));
  expect(handoff.length).toBeGreaterThan(0);
  for (const content of handoff) {
    expect(content).toMatch(HANDOFF);
    expect(content).not.toMatch(/[<>&\u2028\u2029]/);
  }
  const chunks = handoff.map((content) => JSON.parse(HANDOFF.exec(content)![1]!) as string);
  const decoded = await decode(new Response(new TextEncoder().encode(chunks.join(""))).body!);
  await decoded.done;
  return decoded.value as {
    actionData: Record<string, { fields: ContactFields; reason: string; fieldErrors: object }>;
  };
}

// Any text, with the characters each spot escapes, newlines first, and the
// separators and controls the schema refuses; the email never has an @, so
// every post is refused (400) before it could be sent.
const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 60 }),
  fc.string({ unit: "binary", maxLength: 60 }),
  // eslint-disable-next-line no-control-regex -- control characters are the test's input
  fc.stringMatching(/^[\n\r\t "'&<>\\/\u2028\u2029\u0000-\u001f a-z]{0,30}$/),
  fc.constantFrom("", "\n", "\nleading newline", "</textarea><script>x</script>", '\\"', "name", "email"),
);
const typed = fc.record({
  name: text,
  email: text.map((s) => s.replace(/[@＠]/g, "")),
  subject: text,
  message: text,
});

describe("a refused post's page, filled from the template", () => {
  it("writes each field as React does and hydrates with exactly what was typed, for any text", async () => {
    // By the field errors the page shows: the page around the typed text.
    const frames = new Map<string, string>();
    await fc.assert(
      fc.asyncProperty(typed, fc.constantFrom("gzip", "identity"), async (fields, encoding) => {
        const page = await refuse(fields, encoding);
        expect(page.status).toBe(400);
        const posted = asPosted(fields);
        expect(spotsOf(page.html)).toEqual({
          name: reactInput(posted.name),
          email: reactInput(posted.email),
          subject: reactInput(posted.subject),
          message: reactTextarea(posted.message),
        });
        const data = await hydrationData(page.html);
        const refusal = data.actionData["routes/_index"]!;
        expect(refusal.reason).toBe("invalid_fields");
        expect(refusal.fields).toEqual(Object.fromEntries(CONTACT_FIELDS.map((f) => [f, posted[f]])));
        // Nothing else on the page depends on the typed text.
        const errors = JSON.stringify(refusal.fieldErrors);
        if (!frames.has(errors)) frames.set(errors, frame(page));
        expect(frame(page)).toBe(frames.get(errors));
      }),
      { numRuns: 150 },
    );
    expect(frames.size).toBeGreaterThan(1);
    // Filled in, not rendered each time: the server says when it cannot.
    expect(server.app.output()).not.toContain("[html-cache]");
  });
});
