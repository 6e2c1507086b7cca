// The contact form without JavaScript: a plain HTML post, the outcome inline
// in a live region, the page back at the outcome, fields empty after success and
// still filled after failure, and no resend on reload.
import {
  expect,
  expectFields,
  FAILED,
  field,
  fillForm,
  message,
  sendAndConfirm,
  sendButton,
  SENT,
  test,
} from "./fixtures";

test("success: the status inline at the outcome, fields empty, and a reload sends nothing", async ({
  page,
  fake,
  mark,
}) => {
  await page.goto("/");
  await fillForm(page, message(mark));
  await sendAndConfirm(page, message(mark));

  await expect(page).toHaveURL(/\/#contact-outcome$/);
  const status = page.locator("#contact [role=status]");
  await expect(status.getByText(SENT.title, { exact: true })).toBeVisible();
  await expect(status.getByText(SENT.text, { exact: true })).toBeVisible();
  await expect(page.locator("#contact")).toBeInViewport();
  await expectFields(page, null);
  expect(await fake.requests(mark)).toHaveLength(1);

  await page.reload();
  await expect(page.getByText(SENT.title, { exact: true })).toHaveCount(0);
  expect(await fake.requests(mark)).toHaveLength(1);
});

test("failure: the alert inline at the outcome, every field still filled", async ({ page, fake, mark }) => {
  await fake.setMode({ kind: "status", status: 422, body: `Unprocessable (${mark})` }, mark);
  await page.goto("/");
  await fillForm(page, message(mark));
  await sendAndConfirm(page, message(mark));

  await expect(page).toHaveURL(/\/\?index#contact-outcome$/);
  const alert = page.locator("#contact [role=alert]");
  await expect(alert.getByText(FAILED.title, { exact: true })).toBeVisible();
  await expect(alert.getByText(FAILED.text, { exact: true })).toBeVisible();
  await expect(page.locator("#contact")).toBeInViewport();
  // Browsers submit the textarea's line breaks as CRLF; the textarea shows them as "\n".
  await expectFields(page, message(mark));
  expect(await fake.requests(mark)).toHaveLength(1);
});

test("a field error from the server, next to the field, the rest kept, nothing sent", async ({
  page,
  fake,
  mark,
}) => {
  await page.goto("/");
  // A blank subject passes the browser's `required` but not the schema.
  await fillForm(page, { ...message(mark), subject: "   ", message: `Still here ${mark}` });
  await sendButton(page).click();

  await expect(page).toHaveURL(/\/\?index#contact-outcome$/);
  const subject = field(page, "subject");
  await expect(subject).toHaveAttribute("aria-invalid", "true");
  await expect(page.locator(`#${await subject.getAttribute("aria-describedby")}`)).toHaveText(
    "Please enter a subject.",
  );
  await expect(field(page, "message")).toHaveValue(`Still here ${mark}`);
  await expect(field(page, "name")).toHaveValue("Grace Hopper");
  await expect(page.locator("#contact [role=alert]").getByText(FAILED.title, { exact: true })).toBeVisible();
  expect(await fake.requests(mark)).toHaveLength(0);
});
