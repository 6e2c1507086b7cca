// Spam kept out, people let through: bots of every kind we know post to the production server (bot
// checks on, their default times, one trusted proxy) and none reaches the fake provider; people typing
// with and without JavaScript, in a real Chromium, all do, and axe finds nothing on what they see.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CONFIRM_TEXT, OUTCOME_TEXT } from "~/contact/form/contract";
import { startAppServer, type AppServer } from "../support/app-server";
import { chromiumArgs, systemChromium } from "../support/chromium.mjs";
import { BROWSER_HEADERS, postForm, relayEnv } from "../support/contact";
import { startEmailJsFake, type EmailJsFake } from "../support/emailjs-fake";
import { waitForHydration } from "../support/hydration";
import { fetchProof, notBefore } from "../support/proof";
import { keptIn } from "../support/store";

let fake: EmailJsFake;
let app: AppServer;
let browser: Browser;
let outbox: string;

beforeAll(async () => {
  fake = await startEmailJsFake();
  outbox = mkdtempSync(path.join(tmpdir(), "contact-bots-"));
  app = await startAppServer({
    env: {
      ...relayEnv(fake.url, { OUTBOX_DIR: outbox }),
      CONTACT_BOT_CHECKS: "on",
      TRUST_PROXY: "1",
      // The default, which relayEnv lifts for tests that post many messages from one address.
      CONTACT_NETWORK_DAILY_LIMIT: "10",
    },
  });
  browser = await chromium.launch({ executablePath: systemChromium, args: chromiumArgs });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await fake?.close();
  rmSync(outbox, { recursive: true, force: true });
});
beforeEach(() => fake.reset());

let nextAddress = 1;
/** A client address of its own for each visitor, as the proxy would forward it. */
const address = () => `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

/** Mail the provider got whose subject holds `mark`. */
const mailed = (mark: string) => fake.requests.filter((request) => request.rawBody.includes(mark));
/** The subjects of the suspected spam the server holds in its store (OUTBOX_DIR/outbox.sqlite). */
const heldSpam = async () =>
  (await keptIn(outbox))
    .filter((kept) => kept.state === "held" && kept.for === "suspected_spam")
    .map((kept) => kept.params.subject);

function message(mark: string, text = `Hello, I would like to talk about a project. ${mark}`) {
  return { name: "Sam Writer", email: "sam@example.org", subject: `Project ${mark}`, message: text };
}

type Post = { status: number; text: string; location: string | null };

async function post(values: Record<string, string>, headers: Record<string, string>): Promise<Post> {
  const response = await postForm(`${app.url}/?index`, values, headers);
  return { status: response.status, text: await response.text(), location: response.headers.get("location") };
}

/** What a browser sends with a form post; a careful bot copies it. */
const browserLike = (client: string) => ({
  ...BROWSER_HEADERS,
  Origin: app.url,
  "Sec-Fetch-Site": "same-origin",
  "X-Forwarded-For": client,
});

const confirmationToken = (page: string) => /name="confirmation" value="([^"]+)"/.exec(page)?.[1];

describe("bots", { timeout: 60_000 }, () => {
  it("a script posting the four fields without loading the page is asked to confirm, and nothing is mailed", async () => {
    for (let i = 0; i < 10; i++) {
      const answer = await post(message(`script${i}`), { "X-Forwarded-For": address() });
      expect(answer.status).toBe(200);
      expect(answer.text).toContain(CONFIRM_TEXT.title);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("a form filler that fills the hidden field too gets a success and nothing is mailed", async () => {
    for (let i = 0; i < 5; i++) {
      const answer = await post(
        { ...message(`filler${i}`), website: "https://spam.example" },
        browserLike(address()),
      );
      expect(answer.status).toBe(303);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("a careful filler that loads the page and posts within a moment, then confirms at once, mails nothing", async () => {
    for (let i = 0; i < 10; i++) {
      const client = address();
      await (await fetch(`${app.url}/`, { headers: browserLike(client) })).text();
      const first = await post({ ...message(`careful${i}`), website: "" }, browserLike(client));
      const token = confirmationToken(first.text);
      expect(token).toBeTruthy();
      const again = await post({ ...message(`careful${i}`), confirmation: token! }, browserLike(client));
      expect(again.text).toContain(CONFIRM_TEXT.title);
      // Too early: the same token comes back, so pressing again soon never restarts its clock.
      expect(confirmationToken(again.text)).toBe(token);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("one person's real post, replayed byte for byte from 30 other addresses, is mailed once", async () => {
    const person = address();
    const proof = await fetchProof(app.url, browserLike(person));
    await notBefore(proof.issuedAt, 3);
    const values = { ...message("replayed"), website: "", altcha: proof.payload };
    expect((await post(values, browserLike(person))).status).toBe(303);
    for (let i = 0; i < 30; i++) {
      const answer = await post(values, browserLike(address()));
      expect(answer.text).toContain(CONFIRM_TEXT.title);
    }
    // And by the same person: a proof is used once.
    expect((await post(values, browserLike(person))).text).toContain(CONFIRM_TEXT.title);
    expect(mailed("replayed")).toHaveLength(1);
  });

  it("a confirmation token taken to another address, or used twice, mails nothing more", async () => {
    const client = address();
    const first = await post(message("token"), browserLike(client));
    const token = confirmationToken(first.text)!;
    await notBefore(Number(token.split(".")[0]), 2);
    const elsewhere = await post({ ...message("token"), confirmation: token }, browserLike(address()));
    expect(elsewhere.text).toContain(CONFIRM_TEXT.title);
    expect((await post({ ...message("token"), confirmation: token }, browserLike(client))).status).toBe(303);
    expect((await post({ ...message("token"), confirmation: token }, browserLike(client))).status).toBe(200);
    expect(mailed("token")).toHaveLength(1);
  });

  it("a headless Chromium that fills the form and sends within a second mails nothing", async () => {
    for (let i = 0; i < 4; i++) {
      const { context, page } = await visitor(true);
      await page.goto(app.url);
      await waitForHydration(page);
      await fillAtOnce(page, message(`headless${i}`));
      await sendButton(page).click();
      await expect.poll(() => page.getByText(CONFIRM_TEXT.title).count()).toBe(1);
      await context.close();
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("a patient spammer with a valid proof and a message full of links is kept as spam and told it was sent", async () => {
    const before = await heldSpam();
    const links = "Cheap offers at https://a.example/x https://b.example/y and https://bit.ly/zz today";
    for (let i = 0; i < 3; i++) {
      const client = address();
      const proof = await fetchProof(app.url, browserLike(client));
      await notBefore(proof.issuedAt, 3);
      const values = { ...message(`patient${i}`, `${links} ${i}`), altcha: proof.payload };
      const answer = await post(values, browserLike(client));
      expect(answer.status).toBe(303);
      expect(answer.location).toBe("/#contact-outcome");
    }
    expect(fake.requests).toHaveLength(0);
    expect(await heldSpam()).toEqual([...before, "Project patient0", "Project patient1", "Project patient2"]);
  });

  it("one client rotating addresses with the same text, following each confirmation, mails nothing", async () => {
    const text = "We offer SEO services to rank your site first. Reply for a price list.";
    const waits: Promise<void>[] = [];
    const tokens: { client: string; token: string }[] = [];
    for (let i = 0; i < 12; i++) {
      const client = address();
      const first = await post(message(`rotating${i}`, text), { "X-Forwarded-For": client });
      const token = confirmationToken(first.text)!;
      tokens.push({ client, token });
      waits.push(notBefore(Number(token.split(".")[0]), 2));
    }
    await Promise.all(waits);
    for (const [i, { client, token }] of tokens.entries()) {
      const answer = await post(
        { ...message(`rotating${i}`, text), confirmation: token },
        { "X-Forwarded-For": client },
      );
      // Held as spam and told it was sent; past the network's share of spam places, told it was not kept.
      expect([303, 503]).toContain(answer.status);
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("one IPv6 /48 from 20 of its /64s, 5 messages each, following each confirmation: 10 mailed", async () => {
    const pages = [];
    for (let net = 0; net < 20; net++) {
      for (let n = 0; n < 5; n++) {
        const client = `2001:db8:48:${net.toString(16)}::1`;
        const values = message(`slash48-${net}-${n}`, `A question about your work, number ${net}-${n}.`);
        const first = await post(values, browserLike(client));
        pages.push({ client, values, token: confirmationToken(first.text)! });
      }
    }
    await notBefore(Math.max(...pages.map(({ token }) => Number(token.split(".")[0]))), 2);
    for (const { client, values, token } of pages) {
      expect([303, 503]).toContain(
        (await post({ ...values, confirmation: token }, browserLike(client))).status,
      );
    }
    expect(mailed("slash48-")).toHaveLength(10);
    // Another network is not affected.
    const other = await post(message("after-slash48"), browserLike("2001:db8:49::1"));
    const token = confirmationToken(other.text)!;
    await notBefore(Number(token.split(".")[0]), 2);
    expect(
      (await post({ ...message("after-slash48"), confirmation: token }, browserLike("2001:db8:49::1")))
        .status,
    ).toBe(303);
    expect(mailed("after-slash48")).toHaveLength(1);
  });
});

describe("people", { timeout: 60_000 }, () => {
  it("with JavaScript, typing at a person's speed: one press, delivered, and axe finds nothing", async () => {
    const { context, page } = await visitor();
    await page.goto(app.url);
    await waitForHydration(page);
    await typeLikeAPerson(page, message("typist"));
    await expectNoAxeViolations(page);
    await sendButton(page).click();
    await expect.poll(() => page.getByText(OUTCOME_TEXT.sent.title).count()).toBeGreaterThan(0);
    expect(await page.getByText(CONFIRM_TEXT.title).count()).toBe(0);
    await expectNoAxeViolations(page);
    await context.close();
    expect(mailed("typist")).toHaveLength(1);
  });

  it("with JavaScript and a single link in the message: delivered", async () => {
    const { context, page } = await visitor();
    await page.goto(app.url);
    await waitForHydration(page);
    await typeLikeAPerson(
      page,
      message("onelink", "My work is at https://github.com/someone, can we talk? onelink"),
    );
    await sendButton(page).click();
    await expect.poll(() => page.getByText(OUTCOME_TEXT.sent.title).count()).toBeGreaterThan(0);
    expect(await page.getByText(CONFIRM_TEXT.title).count()).toBe(0);
    await context.close();
    expect(mailed("onelink")).toHaveLength(1);
  });

  it("with JavaScript and three links (a site, GitHub, LinkedIn), typed at a person's pace: delivered", async () => {
    const { context, page } = await visitor();
    const spamBefore = await heldSpam();
    await page.goto(app.url);
    await waitForHydration(page);
    const text = "Hi! https://ada.example https://github.com/ada https://linkedin.com/in/ada threelinks";
    await typeLikeAPerson(page, message("threelinks", text), 100);
    await sendButton(page).click();
    await expect.poll(() => page.getByText(OUTCOME_TEXT.sent.title).count()).toBeGreaterThan(0);
    await context.close();
    expect(mailed("threelinks")).toHaveLength(1);
    expect(await heldSpam()).toEqual(spamBefore);
  });

  it("with only the keyboard: Tab to each field, type, Enter on the button: delivered", async () => {
    const { context, page } = await visitor();
    await page.goto(`${app.url}/#contact`);
    await waitForHydration(page);
    await page.locator("#contact-name").focus();
    const values = message("keyboard");
    for (const value of [values.name, values.email, values.subject, values.message]) {
      await page.keyboard.type(value, { delay: 40 });
      await page.keyboard.press("Tab");
    }
    expect(await sendButton(page).evaluate((button) => button === document.activeElement)).toBe(true);
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText(OUTCOME_TEXT.sent.title).count()).toBeGreaterThan(0);
    expect(await page.getByText(CONFIRM_TEXT.title).count()).toBe(0);
    await context.close();
    expect(mailed("keyboard")).toHaveLength(1);
  });

  it("without JavaScript: a confirmation page with the text kept, then a second press delivers it", async () => {
    const { context, page } = await visitor(false, false);
    await page.goto(app.url);
    const values = message("nojs", "Hello,\nI read your page and would like to talk. nojs");
    await typeLikeAPerson(page, values);
    const [confirmPage] = await Promise.all([
      page.waitForResponse((response) => response.request().method() === "POST"),
      sendButton(page).click(),
    ]);
    expect(confirmPage.status()).toBe(200);
    expect(confirmPage.headers()["cache-control"]).toBe("private, no-store");
    await expect.poll(() => page.getByRole("status").getByText(CONFIRM_TEXT.title).count()).toBe(1);
    expect(await page.locator("#contact-message").inputValue()).toBe(values.message);
    expect(await page.locator("#contact-subject").inputValue()).toBe(values.subject);
    await expectNoAxeViolationsIn(await page.content());
    expect(mailed("nojs")).toHaveLength(0);
    // A person reads it and presses again; too soon, the same page comes back and they press again.
    for (let presses = 0; presses < 200 && mailed("nojs").length === 0; presses++) {
      await Promise.all([
        page.waitForResponse((response) => response.request().method() === "POST"),
        sendButton(page).click(),
      ]);
      await page.waitForLoadState();
    }
    await expect.poll(() => page.getByRole("status").getByText(OUTCOME_TEXT.sent.title).count()).toBe(1);
    await expectNoAxeViolationsIn(await page.content());
    await context.close();
    expect(mailed("nojs")).toHaveLength(1);
  });
});

async function visitor(
  headless = false,
  javaScriptEnabled = true,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    javaScriptEnabled,
    extraHTTPHeaders: { "X-Forwarded-For": address() },
    // People's browsers say who they are; the headless bot keeps Chromium's own HeadlessChrome.
    ...(headless ? {} : { userAgent: BROWSER_HEADERS["User-Agent"] }),
  });
  return { context, page: await context.newPage() };
}

const sendButton = (page: Page) => page.locator("#contact form button[type=submit]");

async function fillAtOnce(page: Page, values: ReturnType<typeof message>) {
  for (const [name, value] of Object.entries(values)) await page.locator(`#contact-${name}`).fill(value);
}

/** Types each field key by key, as a person does (a few characters a second is slower still). */
/** `delayMs` between keys: 100 is 10 characters a second, a quick typist's pace. */
async function typeLikeAPerson(page: Page, values: ReturnType<typeof message>, delayMs = 40) {
  for (const [name, value] of Object.entries(values)) {
    await page.locator(`#contact-${name}`).pressSequentially(value, { delay: delayMs });
  }
}

async function expectNoAxeViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).include("#contact").analyze();
  expect(violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
}

/** axe needs JavaScript: a page without it is checked as its HTML, with its styles and without its scripts. */
async function expectNoAxeViolationsIn(html: string) {
  const context = await browser.newContext();
  await context.route(/\.js$/, (route) => route.abort());
  const page = await context.newPage();
  await page.route(`${app.url}/axe-check`, (route) =>
    route.fulfill({ body: html, contentType: "text/html" }),
  );
  await page.goto(`${app.url}/axe-check`);
  await expectNoAxeViolations(page);
  await context.close();
}
