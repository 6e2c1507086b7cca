// The contact form without JavaScript: a plain HTML post, the outcome inline
// in a live region, the page back at #contact, fields empty after success and
// still filled after failure, and no resend on reload.
import { expect, test } from "@playwright/test";
import { expectFields, fake, field, fillForm, marker, message, sendButton } from "../support/contact-e2e";

const SENT = { title: "Message Sent!", text: "Thank you for your message. I'll get back to you soon!" };
const FAILED = {
  title: "Error Sending Message",
  text: "There was an issue sending your message. Please try again or contact me directly.",
};

test("success: the status inline at #contact, fields empty, and a reload sends nothing", async ({
  page,
}, info) => {
  const mark = marker(info);
  await page.goto("/");
  await fillForm(page, message(mark));
  await sendButton(page).click();

  await expect(page).toHaveURL(/\/#contact$/);
  const status = page.locator("#contact [role=status]");
  await expect(status.getByText(SENT.title, { exact: true })).toBeVisible();
  await expect(status.getByText(SENT.text, { exact: true })).toBeVisible();
  await expect(page.locator("#contact")).toBeInViewport();
  await expectFields(page, null);
  expect(await fake().requests(mark)).toHaveLength(1);

  await page.reload();
  await expect(page.getByText(SENT.title, { exact: true })).toHaveCount(0);
  expect(await fake().requests(mark)).toHaveLength(1);
});

test("failure: the alert inline at #contact, every field still filled", async ({ page }, info) => {
  const mark = marker(info);
  await fake().setMode({ kind: "status", status: 422 }, mark);
  await page.goto("/");
  await fillForm(page, message(mark));
  await sendButton(page).click();

  await expect(page).toHaveURL(/#contact$/);
  const alert = page.locator("#contact [role=alert]");
  await expect(alert.getByText(FAILED.title, { exact: true })).toBeVisible();
  await expect(alert.getByText(FAILED.text, { exact: true })).toBeVisible();
  await expect(page.locator("#contact")).toBeInViewport();
  // Browsers submit the textarea's line breaks as CRLF; the textarea shows them as "\n".
  await expectFields(page, message(mark));
  expect(await fake().requests(mark)).toHaveLength(1);
});

test("a field error from the server, next to the field, the rest kept, nothing sent", async ({
  page,
}, info) => {
  const mark = marker(info);
  await page.goto("/");
  // A blank subject passes the browser's `required` but not the schema.
  await fillForm(page, { ...message(mark), subject: "   ", message: `Still here ${mark}` });
  await sendButton(page).click();

  await expect(page).toHaveURL(/#contact$/);
  const subject = field(page, "subject");
  await expect(subject).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(`#${await subject.getAttribute("aria-describedby")}`)).toHaveText(
    "Please enter a subject.",
  );
  await expect(field(page, "message")).toHaveValue(`Still here ${mark}`);
  await expect(field(page, "name")).toHaveValue("Grace Hopper");
  await expect(page.locator("#contact [role=alert]").getByText(FAILED.title, { exact: true })).toBeVisible();
  expect(await fake().requests(mark)).toHaveLength(0);
});
