// What the e2e specs share, as Playwright fixtures and helpers: the content
// they read, opening a page and waiting for hydration (in one place), console
// and CSP problems collected and asserted at the end, the fake EmailJS API,
// the contact form's fields, and where a section stops when scrolled to.
import { createHash } from "node:crypto";
import { expect, test as base, type Page, type TestInfo } from "@playwright/test";
import { site } from "~/content/site";
import { fakeControl } from "../support/emailjs-fake";
import { waitForHydration } from "../support/hydration";

export { expect, site, waitForHydration };

/** The EmailJS account the e2e app server runs with: recognisable, so a test can prove none reaches the browser. */
export const E2E_EMAILJS_IDS = {
  EMAILJS_PUBLIC_KEY: "e2e_pub_K3yN0tF0rBr0wsers",
  EMAILJS_SERVICE_ID: "e2e_service_5eRv1ceId",
  EMAILJS_TEMPLATE_ID: "e2e_template_T3mpl4te",
  EMAILJS_PRIVATE_KEY: "e2e_private_Pr1v4teK3y",
} as const;

/** Where the global setup publishes the base URL of the fake EmailJS API. */
export const FAKE_URL_ENV = "E2E_EMAILJS_FAKE_URL";

/** The two outcomes a visitor reads (docs/product.md). */
export const SENT = {
  title: "Message Sent!",
  text: "Thank you for your message. I'll get back to you soon!",
};
export const FAILED = {
  title: "Error Sending Message",
  text: "There was an issue sending your message. Please try again or contact me directly.",
};

// ---- Hydration (when: tests/support/hydration.ts) ----

/** Opens a page with the header and waits until it has hydrated. */
export async function gotoHydrated(page: Page, url = "/") {
  const response = await page.goto(url);
  await waitForHydration(page);
  return response;
}

// ---- Bounds for a loaded machine (decision 028) ----

/** For a test that waits on the page's main thread at length: an axe scan of the form took 45 s at 50x CPU
 * throttling; a whole test has 30 s by default. */
export const LONG_TEST_TIMEOUT_MS = 180_000;

/** For a wait on a scroll the page makes: an End-key scroll took 3-26 s at 150x; expect gives up at 5 s. */
export const SCROLL_POLL = { timeout: 60_000 };

// ---- Scrolling ----

export const SECTION_IDS = site.nav.map((item) => item.id);

/** The header is fixed; sections stop below it (scroll-margin-top: 4.5rem). */
export const SECTION_STOP_PX = 72;

/** The top of a section relative to the viewport, in px. */
export function sectionTop(page: Page, id: string) {
  return page.evaluate(
    (sectionId) => Math.round(document.getElementById(sectionId)!.getBoundingClientRect().top),
    id,
  );
}

/** Whether the window is scrolled to the very bottom (a short last section cannot reach the top). */
export function atPageBottom(page: Page) {
  return page.evaluate(() => {
    const root = document.documentElement;
    return Math.ceil(window.innerHeight + window.scrollY) >= root.scrollHeight - 2;
  });
}

/** Waits until the section sits under the header, or the page cannot scroll further towards it. */
export async function expectScrolledTo(page: Page, id: string) {
  await expect
    .poll(async () => {
      const top = await sectionTop(page, id);
      if (Math.abs(top - SECTION_STOP_PX) <= 2) return "at section";
      if (top > SECTION_STOP_PX && (await atPageBottom(page))) return "at section";
      if (top < SECTION_STOP_PX && (await page.evaluate(() => window.scrollY)) === 0) return "at section";
      return top;
    }, SCROLL_POLL)
    .toBe("at section");
}

// ---- The contact form ----

export function message(mark: string) {
  return {
    name: "Grace Hopper",
    email: "grace@example.com",
    subject: `Compilers ${mark}`,
    // Its own text too: the same text from many visitors is a spam signal.
    message: `Hello!\nShall we talk about COBOL? (${mark})`,
  };
}

export type Message = ReturnType<typeof message>;
const LABELS = { name: "Name", email: "Email", subject: "Subject", message: "Message" } as const;

export const field = (page: Page, name: keyof Message) =>
  page.locator("#contact form").getByLabel(LABELS[name], { exact: true });

export async function fillForm(page: Page, values: Message) {
  for (const name of Object.keys(LABELS) as Array<keyof Message>) await field(page, name).fill(values[name]);
}

export async function expectFields(page: Page, values: Message | null) {
  for (const name of Object.keys(LABELS) as Array<keyof Message>) {
    await expect(field(page, name)).toHaveValue(values ? values[name] : "");
  }
}

export const sendButton = (page: Page) =>
  page.locator("#contact form").getByRole("button", { name: /^(Send Message|Sending\.\.\.)$/ });

export const CONFIRM_TITLE = "Please confirm your message";

/** The failures a visitor can meet, how to bring each about, and the line that follows the spec's text. */
export const failureCases: {
  name: string;
  arrange: (fake: ReturnType<typeof fakeControl>, mark: string) => Promise<void>;
  posts: (mark: string) => Message[];
  detail?: string;
}[] = [
  {
    name: "kept to send later (the provider failed)",
    arrange: (fake, mark) => fake.setMode({ kind: "status", status: 500, body: `Down (${mark})` }, mark),
    posts: (mark) => [message(mark)],
    detail: "Your message is saved and will be sent when the mail service is back.",
  },
  {
    name: "held for the owner (the provider refused this message)",
    // Words of its own: two messages refused alike would be the account's refusal, for every test.
    arrange: (fake, mark) => fake.setMode({ kind: "status", status: 400, body: `Bad (${mark})` }, mark),
    posts: (mark) => [message(mark)],
    detail: "Your message is saved, and I will read it.",
  },
  {
    name: "not kept (a visitor's fourth failed message in a day)",
    // The provider failing, not refusing: four messages refused alike would be the account's refusal.
    arrange: (fake, mark) => fake.setMode({ kind: "status", status: 500, body: `Down (${mark})` }, mark),
    posts: (mark) => [1, 2, 3, 4].map((n) => ({ ...message(mark), subject: `Try ${n} ${mark}` })),
    detail: `It could not be kept to send later: please write to me at ${site.contact.email}.`,
  },
  {
    name: "refused (the sender is on the block list)",
    arrange: async () => {},
    posts: (mark) => [{ ...message(mark), email: `someone@${BLOCKED_DOMAIN}` }],
  },
];

/** The e2e server refuses senders at this domain (global setup). */
export const BLOCKED_DOMAIN = "blocked.example";

/** Without JavaScript a post carries no proof: the page asks to press Send again, with the text kept. */
export async function sendAndConfirm(page: Page, values: Message) {
  await sendButton(page).click();
  await expect(page.locator("#contact [role=status]").getByText(CONFIRM_TITLE)).toBeVisible();
  await expectFields(page, values);
  await sendButton(page).click();
}

// ---- Fixtures ----

/** Console errors and warnings, uncaught errors and CSP violations a page raised. */
export class Problems {
  readonly seen: string[] = [];
  private allowed: RegExp[] = [];

  /** Lines this test expects (a 404's own log, say); the rest still fail it. */
  allow(...patterns: RegExp[]) {
    this.allowed.push(...patterns);
  }

  unexpected() {
    return this.seen.filter((line) => !this.allowed.some((pattern) => pattern.test(line)));
  }
}

type Fixtures = {
  /**
   * Watches the page from before its first navigation; at the end of the test
   * there must be nothing but what it allowed. React reports hydration
   * mismatches as uncaught errors in production; CSP violations come from the
   * document's own event.
   */
  problems: Problems;
  /** The fake EmailJS API that the shared app server relays to. */
  fake: ReturnType<typeof fakeControl>;
  /** A string unique to this test, put in the subject so tests sharing the fake never mix. */
  mark: string;
};

/**
 * Each test is its own visitor: the app trusts one proxy (global setup), and
 * every request of the test names an address of its own, so the per-client
 * allowances (the contact limit, the 3 kept messages a day) are per test.
 */
function visitorAddress(info: TestInfo): string {
  const digest = createHash("sha256").update(`${info.testId}:${info.retry}`).digest();
  return `10.${digest[0]}.${digest[1]}.${digest[2]}`;
}

export const test = base.extend<Fixtures>({
  extraHTTPHeaders: async ({ extraHTTPHeaders }, use, info) => {
    await use({ ...extraHTTPHeaders, "X-Forwarded-For": visitorAddress(info) });
  },
  problems: async ({ page }, use) => {
    const problems = new Problems();
    page.on("console", (entry) => {
      if (entry.type() === "error" || entry.type() === "warning")
        problems.seen.push(`${entry.type()}: ${entry.text()}`);
    });
    page.on("pageerror", (error) => problems.seen.push(`pageerror: ${error.message}`));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (event) => {
        console.error(
          `CSP violation: ${event.effectiveDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile}:${event.lineNumber})`,
        );
      });
    });
    await use(problems);
    expect(problems.unexpected(), "console, page errors and CSP violations").toEqual([]);
  },
  fake: async ({}, use) => {
    const url = process.env[FAKE_URL_ENV];
    if (!url) throw new Error(`${FAKE_URL_ENV} is not set: run through playwright.config.ts (global setup)`);
    await use(fakeControl(url));
  },
  mark: async ({}, use, info: TestInfo) => {
    await use(`m${info.testId}${info.retry}${Math.random().toString(36).slice(2, 8)}`);
  },
});
