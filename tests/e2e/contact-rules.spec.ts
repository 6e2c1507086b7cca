// The text rules of the shared schema in the browser: a
// name of only a zero-width space is empty, a subject with U+2028 is not one
// line; each field says so next to it and nothing is sent.
import type { Page } from "@playwright/test";
import { expect, field, fillForm, gotoHydrated, message, sendButton, test } from "./fixtures";

async function expectFieldError(page: Page, name: "name" | "subject", text: string) {
  const box = field(page, name);
  await expect(box).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(`#${await box.getAttribute("aria-describedby")}`)).toHaveText(text);
}

test("invisible and multi-line text gets the field's message, and nothing is sent", async ({
  page,
  fake,
  mark,
}) => {
  await gotoHydrated(page);
  // Both pass the browser's `required`; the schema refuses them.
  await fillForm(page, { ...message(mark), name: "\u200b", subject: `Hello\u2028Bcc: ${mark}` });
  await sendButton(page).click();

  await expectFieldError(page, "name", "Please enter your name.");
  await expectFieldError(page, "subject", "Subject must be a single line of text.");
  expect(await fake.requests(mark)).toHaveLength(0);
});
