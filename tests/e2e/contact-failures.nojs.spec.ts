// Every failure a visitor can meet, without JavaScript: the page's alert carries the spec's title and
// text word for word, then one line of its own (kept for later, not kept, refused).
import { failureCases, FAILED, expect, fillForm, sendAndConfirm, test } from "./fixtures";

for (const failure of failureCases) {
  test(`${failure.name}: the alert says the spec's text, then "${failure.detail ?? "nothing more"}"`, async ({
    page,
    fake,
    mark,
  }) => {
    await failure.arrange(fake, mark);
    await page.goto("/");
    for (const values of failure.posts(mark)) {
      await fillForm(page, values);
      await sendAndConfirm(page, values);
      await expect(
        page.locator("#contact [role=alert]").getByText(FAILED.title, { exact: true }),
      ).toBeVisible();
    }
    const alert = page.locator("#contact [role=alert]");
    await expect(alert.getByText(FAILED.text, { exact: true })).toBeVisible();
    if (failure.detail) await expect(alert.getByText(failure.detail)).toBeVisible();
    else await expect(alert.locator("p")).toHaveCount(2);
  });
}
