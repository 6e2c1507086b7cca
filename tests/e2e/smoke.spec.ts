import { expect, test } from "@playwright/test";

test("home renders", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Aarav Mehta");
});
