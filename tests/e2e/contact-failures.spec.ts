// Every failure a visitor can meet, with JavaScript: the toast carries the spec's title and text word
// for word, then one line of its own (kept for later, not kept, refused). The same without JavaScript:
// contact-failures.nojs.spec.ts.
import { failureCases, FAILED, expect, gotoHydrated, fillForm, sendButton, test } from "./fixtures";

for (const failure of failureCases) {
  test(`${failure.name}: the toast says the spec's text, then "${failure.detail ?? "nothing more"}"`, async ({
    page,
    problems,
    fake,
    mark,
  }) => {
    problems.allow(/status of 50\d|status of 403/, /^error: Contact form: message not sent/);
    await failure.arrange(fake, mark);
    await gotoHydrated(page);
    const toasts = page.locator("ol > li[data-state=open]");
    for (const [i, values] of failure.posts(mark).entries()) {
      await fillForm(page, values);
      await sendButton(page).click();
      // Errors stay until closed, so each answer adds one.
      await expect(toasts).toHaveCount(i + 1);
    }
    const toast = toasts.last();
    await expect(toast.getByText(FAILED.title, { exact: true })).toBeVisible();
    await expect(toast.getByText(FAILED.text, { exact: true })).toBeVisible();
    if (failure.detail) await expect(toast.getByText(failure.detail)).toBeVisible();
  });
}
