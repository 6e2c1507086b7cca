// The contact form with JavaScript, against the production build and the fake
// EmailJS API: no reload, "Sending...", toasts, fields cleared or kept, the
// console error, field errors from the shared schema, no resend on reload,
// accessibility, and no EmailJS id or key anywhere the browser can see.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import {
  E2E_EMAILJS_IDS,
  expect,
  expectFields,
  FAILED,
  field,
  fillForm,
  gotoHydrated,
  LONG_TEST_TIMEOUT_MS,
  message,
  sendButton,
  SENT,
  site,
  test,
} from "./fixtures";

// Radix renders a toast's text twice (once for screen readers): take the first.
const toastText = (page: Page, text: string | RegExp) => page.getByText(text, { exact: true }).first();

/** Opens the page, hydrated (the fetcher form listens), and marks the document to tell a reload. */
async function openHydrated(page: Page) {
  await gotoHydrated(page);
  await page.evaluate(() => ((window as { __sameDocument?: boolean }).__sameDocument = true));
}

/** The text of each console error among the problems seen. */
const consoleErrors = (seen: string[]) =>
  seen.filter((line) => line.startsWith("error: ")).map((line) => line.slice("error: ".length));

const sameDocument = (page: Page) =>
  page.evaluate(() => (window as { __sameDocument?: boolean }).__sameDocument === true);

test("success: toast, fields cleared, no reload, the exact upstream body, and a reload sends nothing", async ({
  page,
  problems,
  fake,
  mark,
}) => {
  const values = message(mark);
  await openHydrated(page);
  await fillForm(page, values);
  await sendButton(page).click();

  await expect(toastText(page, SENT.title)).toBeVisible();
  await expect(toastText(page, SENT.text)).toBeVisible();
  await expectFields(page, null);
  await expect(sendButton(page)).toHaveText("Send Message");
  await expect(sendButton(page)).toBeEnabled();
  expect(await sameDocument(page)).toBe(true);
  // The inline live region is for visitors without JavaScript only.
  await expect(page.locator("#contact [role=status]")).toHaveCount(0);

  const received = await fake.requests(mark);
  expect(received).toHaveLength(1);
  expect(received[0]!.headers["content-type"]).toBe("application/json");
  expect(received[0]!.body).toEqual({
    lib_version: "4.4.1",
    user_id: E2E_EMAILJS_IDS.EMAILJS_PUBLIC_KEY,
    service_id: E2E_EMAILJS_IDS.EMAILJS_SERVICE_ID,
    template_id: E2E_EMAILJS_IDS.EMAILJS_TEMPLATE_ID,
    template_params: {
      name: values.name,
      from_email: values.email,
      subject: values.subject,
      // Browsers submit a textarea's line breaks as CRLF; the schema counts
      // and sends them as one "\n".
      message: values.message,
      to_name: site.name,
    },
    accessToken: E2E_EMAILJS_IDS.EMAILJS_PRIVATE_KEY,
  });

  await page.reload();
  await expect(page.getByText(SENT.title, { exact: true })).toHaveCount(0);
  expect(await fake.requests(mark)).toHaveLength(1);
  // No hydration mismatch, CSP violation or other console complaint on the way.
  expect(problems.unexpected()).toEqual([]);
});

test("failure: destructive toast, fields kept, console.error with status and reason only", async ({
  page,
  problems,
  fake,
  mark,
}) => {
  const values = message(mark);
  await fake.setMode({ kind: "status", status: 500, body: `Down (${mark})` }, mark);
  await openHydrated(page);
  await fillForm(page, values);
  await sendButton(page).click();

  await expect(toastText(page, FAILED.title)).toBeVisible();
  await expect(toastText(page, FAILED.text)).toBeVisible();
  await expectFields(page, values);
  await expect(sendButton(page)).toBeEnabled();
  expect(await sameDocument(page)).toBe(true);
  // (The browser also reports the 502 answer itself.)
  const errors = consoleErrors(problems.seen);
  expect(errors).toContain("Contact form: message not sent (status 502, upstream_error)");
  for (const secret of Object.values(E2E_EMAILJS_IDS)) expect(errors.join("\n")).not.toContain(secret);
  problems.allow(/status of 502/, /^error: Contact form: message not sent \(status 502, upstream_error\)$/);
  expect(await fake.requests(mark)).toHaveLength(1);

  // The visitor tries again once the provider is back: the message already waits to be sent again by
  // the server, so the provider is not called twice and the toast says it is saved.
  await fake.setMode({ kind: "status", status: 200 }, mark);
  await sendButton(page).click();
  await expect(
    toastText(page, "Your message is saved and will be sent when the mail service is back."),
  ).toBeVisible();
  await expectFields(page, values);
  expect(await fake.requests(mark)).toHaveLength(1);
});

test("a message over the size limit: the toast says it is too long and gives the limit, and nothing is sent", async ({
  page,
  problems,
  fake,
  mark,
}) => {
  // The form and its schema never send so much: the body grows on its way, as a script's would.
  await page.route("**/_root.data?index", (route) =>
    route.continue({ postData: `${route.request().postData()}&pad=${"x".repeat(70 * 1024)}` }),
  );
  await openHydrated(page);
  await fillForm(page, message(mark));
  await sendButton(page).click();

  await expect(toastText(page, FAILED.title)).toBeVisible();
  await expect(toastText(page, /too long: it may have at most 5,000 characters/)).toBeVisible();
  expect(await fake.requests(mark)).toHaveLength(0);
  problems.allow(
    /status of 413/,
    /^error: Contact form: message not sent \(status 413, payload_too_large\)$/,
  );
});

test("the site unreachable while sending: the error toast, not the error page, and the text kept", async ({
  page,
  problems,
  fake,
  mark,
}) => {
  await openHydrated(page);
  await fillForm(page, message(mark));
  await page.route(
    (url) => url.pathname.endsWith(".data"),
    (route) => (route.request().method() === "POST" ? route.abort("internetdisconnected") : route.continue()),
  );
  await sendButton(page).click();

  await expect(toastText(page, FAILED.title)).toBeVisible();
  await expect(page.getByRole("heading", { name: "Get In Touch" })).toBeVisible();
  await expectFields(page, message(mark));
  expect(consoleErrors(problems.seen)).toContain("Contact form: message not sent (status 0, network_error)");
  problems.allow(
    /ERR_INTERNET_DISCONNECTED/,
    /^error: Contact form: message not sent \(status 0, network_error\)$/,
  );
  expect(await fake.requests(mark)).toHaveLength(0);
});

test('"Sending..." and a disabled button while the provider is slow', async ({ page, fake, mark }) => {
  await fake.setMode({ kind: "status", status: 200, delayMs: 1500 }, mark);
  await openHydrated(page);
  await fillForm(page, message(mark));
  await sendButton(page).click();

  await expect(sendButton(page)).toHaveText("Sending...");
  await expect(sendButton(page)).toBeDisabled();
  await expect(toastText(page, SENT.title)).toBeVisible();
  await expect(sendButton(page)).toHaveText("Send Message");
  await expect(sendButton(page)).toBeEnabled();
});

test("a provider that never answers: the error toast within the deadline, and the server keeps serving", async ({
  page,
  fake,
  mark,
}) => {
  test.setTimeout(60_000);
  await fake.setMode({ kind: "hang" }, mark);
  await openHydrated(page);
  await fillForm(page, message(mark));
  const started = Date.now();
  await sendButton(page).click();
  await expect(toastText(page, FAILED.title)).toBeVisible({ timeout: 20_000 });
  // The server gives up within its 10 s deadline; the rest is slack for a busy test machine.
  expect(Date.now() - started).toBeLessThan(16_000);
  await expectFields(page, message(mark));
  // One attempt: the provider may have the message, so a timeout is not retried.
  expect(await fake.requests(mark)).toHaveLength(1);
  // The message was kept for the owner (a message not kept says so), and the server keeps serving.
  await expect(toastText(page, FAILED.text)).toBeVisible();
  expect((await page.request.get("/healthz")).ok()).toBe(true);
});

test("field errors come from the shared schema, next to the field, and nothing is sent", async ({
  page,
  fake,
  mark,
}) => {
  await openHydrated(page);
  // The browser's `required` accepts spaces; the schema does not.
  await fillForm(page, { ...message(mark), message: "   " });
  await sendButton(page).click();

  const box = field(page, "message");
  await expect(box).toHaveAttribute("aria-invalid", "true");
  const describedBy = await box.getAttribute("aria-describedby");
  await expect(page.locator(`#${describedBy}`)).toHaveText("Please enter a message.");
  await expect(field(page, "name")).not.toHaveAttribute("aria-invalid", "true");
  await expect(box).toBeFocused();
  expect(await fake.requests(mark)).toHaveLength(0);

  // Typing clears the error.
  await box.fill("Now with words.");
  await expect(box).not.toHaveAttribute("aria-invalid", "true");
});

test("passes axe with field errors and a toast, in both themes", async ({ page, fake, mark }) => {
  test.setTimeout(LONG_TEST_TIMEOUT_MS);
  await fake.setMode({ kind: "status", status: 503 }, mark);
  await openHydrated(page);
  await fillForm(page, { ...message(mark), name: " " });
  await sendButton(page).click();
  await expect(field(page, "name")).toHaveAttribute("aria-invalid", "true");
  for (const theme of ["dark", "light"]) {
    await page.evaluate((next) => {
      document.documentElement.classList.remove("dark", "light");
      document.documentElement.classList.add(next);
    }, theme);
    // Colors ease into the new theme: axe reads them once every transition has ended.
    await page.waitForFunction(() =>
      document.getAnimations().every((animation) => animation.playState !== "running"),
    );
    const results = await new AxeBuilder({ page }).include("#contact").analyze();
    expect(results.violations, `${theme} theme`).toEqual([]);
  }
});

test("no EmailJS id or key reaches the browser: not in any response the page loads, nor its headers", async ({
  page,
  fake,
  mark,
}) => {
  // The browser's own globals, named before any script of the page runs.
  await page.addInitScript(() =>
    Object.defineProperty(window, "browserGlobals", { value: Object.keys(window), enumerable: false }),
  );
  const seen: Array<Promise<string>> = [];
  page.on("response", (response) => {
    seen.push(
      (async () => {
        const headers = JSON.stringify(await response.allHeaders());
        const body =
          response.request().method() === "HEAD" || (response.status() >= 300 && response.status() < 400)
            ? ""
            : await response.text().catch(() => "");
        return `${response.url()}\n${headers}\n${body}`;
      })(),
    );
  });
  await openHydrated(page);
  // Submit once so the lazily loaded code and the action's answers are included.
  await fillForm(page, message(mark));
  await sendButton(page).click();
  await expect(toastText(page, SENT.title)).toBeVisible();
  await fake.setMode({ kind: "status", status: 401, body: `Unauthorized (${mark})` }, mark);
  await fillForm(page, message(mark));
  await sendButton(page).click();
  await expect(toastText(page, FAILED.title)).toBeVisible();

  const everything = await Promise.all(seen);
  const urls = everything.map((entry) => entry.split("\n")[0]);
  expect(urls.some((url) => /\.js$/.test(url!))).toBe(true);
  expect(urls.some((url) => /\.css$/.test(url!))).toBe(true);
  expect(urls.filter((url) => /\.data(\?|$)/.test(url!)).length).toBeGreaterThanOrEqual(2);
  for (const secret of Object.values(E2E_EMAILJS_IDS)) {
    const leaks = everything.filter((entry) => entry.includes(secret)).map((entry) => entry.split("\n")[0]);
    expect(leaks, secret).toEqual([]);
  }
  // Every global the page's scripts added, whichever script added it; the loader data is among them.
  const globals = await page.evaluate(() => {
    const page = window as unknown as Record<string, unknown> & { browserGlobals: string[] };
    const before = new Set(page.browserGlobals);
    return Object.keys(window)
      .filter((key) => !before.has(key))
      .map((key) => {
        try {
          return `${key}: ${JSON.stringify(page[key])}`;
        } catch {
          return key;
        }
      })
      .join("\n");
  });
  expect(globals).toContain(site.contact.email);
  for (const secret of Object.values(E2E_EMAILJS_IDS)) expect(globals).not.toContain(secret);
});
