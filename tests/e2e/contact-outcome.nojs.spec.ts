// Without JavaScript, each press of Send lands on its outcome: the confirmation, the success and the
// failure sit inside the viewport below the fixed header once the page settles, are live regions and
// hold the focus, on a phone and a laptop in both themes, with no axe violation.
import AxeBuilder from "@axe-core/playwright";
import type { Locator, Page, TestInfo } from "@playwright/test";
import {
  CONFIRM_TITLE,
  expect,
  FAILED,
  fillForm,
  LONG_TEST_TIMEOUT_MS,
  message,
  SCROLL_POLL,
  sendButton,
  SENT,
  test,
} from "./fixtures";

const SIZES = [
  { width: 375, height: 740 },
  { width: 1366, height: 800 },
];

/** Where the notice lies against the part of the viewport the fixed header leaves, once it stops moving. */
async function expectInView(page: Page, notice: Locator) {
  const { width, height } = page.viewportSize()!;
  let last = "";
  await expect
    .poll(async () => {
      const [box, header] = await Promise.all([notice.boundingBox(), page.getByRole("banner").boundingBox()]);
      if (!box || !header) return "not laid out";
      const seen = `${Math.round(box.x)},${Math.round(box.y)} ${Math.round(box.width)}x${Math.round(box.height)}`;
      const settled = seen === last;
      last = seen;
      const inside =
        box.y >= header.y + header.height - 1 &&
        box.y + box.height <= height + 1 &&
        box.x >= 0 &&
        box.x + box.width <= width + 1;
      if (!settled) return `moving: ${seen}`;
      return inside ? "in view" : `${seen} outside ${width}x${height} below ${header.y + header.height}`;
    }, SCROLL_POLL)
    .toBe("in view");
}

/**
 * axe needs the page's timers, which do not run without JavaScript: it scans a copy of the page as it
 * stands (the same DOM, its scripts removed) in a browser that runs axe alone.
 */
async function axeViolations(page: Page) {
  const html = (await page.content()).replace(/<script\b[\s\S]*?<\/script>/gi, "");
  const address = page.url().split("#")[0];
  const context = await page
    .context()
    .browser()!
    .newContext({ javaScriptEnabled: true, viewport: page.viewportSize() });
  try {
    const copy = await context.newPage();
    await copy.route(
      (url) => url.href === address,
      (route) => route.fulfill({ contentType: "text/html", body: html }),
    );
    await copy.goto(page.url());
    const background = (target: Page) =>
      target.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background(copy), "the copy has the page's styles").toBe(await background(page));
    const { violations } = await new AxeBuilder({ page: copy }).include("#contact").analyze();
    return violations.map((violation) => `${violation.id}: ${violation.help}`);
  } finally {
    await context.close();
  }
}

async function expectLandedOn(page: Page, notice: Locator, name: string, info: TestInfo) {
  await expect(notice).toBeVisible();
  await expectInView(page, notice);
  await expect(notice).toBeFocused();
  expect(await axeViolations(page)).toEqual([]);
  await info.attach(name, { body: await page.screenshot(), contentType: "image/png" });
}

const notice = (page: Page, role: "status" | "alert", title: string) =>
  page.locator(`#contact [role=${role}]`).filter({ hasText: title });

for (const size of SIZES) {
  for (const theme of ["dark", "light"] as const) {
    test(`${size.width}x${size.height}, ${theme}: confirmation, success and failure each land in view`, async ({
      page,
      fake,
      mark,
    }, info) => {
      test.setTimeout(LONG_TEST_TIMEOUT_MS);
      await page.setViewportSize(size);
      await page.goto("/");
      if (theme === "light") await page.getByRole("button", { name: "Switch to light theme" }).click();
      await expect(page.locator("html")).toHaveClass(theme);
      const label = `${size.width}-${theme}`;

      await fillForm(page, message(mark));
      await sendButton(page).click();
      await expectLandedOn(page, notice(page, "status", CONFIRM_TITLE), `${label}-confirmation`, info);

      await sendButton(page).click();
      await expectLandedOn(page, notice(page, "status", SENT.title), `${label}-success`, info);

      await fake.setMode({ kind: "status", status: 422, body: `Unprocessable (${mark})` }, `Again ${mark}`);
      await fillForm(page, { ...message(mark), subject: `Again ${mark}` });
      await sendButton(page).click();
      await expect(notice(page, "status", CONFIRM_TITLE)).toBeVisible();
      await sendButton(page).click();
      await expectLandedOn(page, notice(page, "alert", FAILED.title), `${label}-failure`, info);
    });
  }
}
