// Printing /: a clean document in either theme. Chromium's print media
// (what a visitor's "Print" lays out) and a real PDF of it.
import type { Page } from "@playwright/test";
import { expect, fillForm, gotoHydrated, message, SENT, site, test } from "./fixtures";

/** Opens / in a theme, as a returning visitor who chose it. */
async function openInTheme(page: Page, theme: "dark" | "light") {
  await page.addInitScript((chosen) => localStorage.setItem("theme", chosen), theme);
  await gotoHydrated(page);
  await expect(page.locator("html")).toHaveClass(theme);
}

/** Relative luminance of a computed `rgb(...)` colour (0 black, 1 white). */
async function luminance(page: Page, selector: string, property: "color" | "backgroundColor") {
  const value = await page
    .locator(selector)
    .first()
    .evaluate((element, name) => getComputedStyle(element)[name], property);
  const [r, g, b] = value
    .match(/[\d.]+/g)!
    .slice(0, 3)
    .map(Number);
  const linear = (c: number) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * linear(r!) + 0.7152 * linear(g!) + 0.0722 * linear(b!);
}

for (const theme of ["dark", "light"] as const) {
  test(`printing / in the ${theme} theme gives a clean document`, async ({ page, mark }, info) => {
    await openInTheme(page, theme);
    // A toast on screen too, to check that it does not reach the paper.
    await fillForm(page, message(mark));
    await page.locator("#contact form").getByRole("button", { name: "Send Message" }).click();
    const toast = page.getByText(SENT.title, { exact: true }).first();
    await expect(toast).toBeVisible();

    await page.emulateMedia({ media: "print" });
    // Hidden: header, menus, theme toggle, form, toasts.
    await expect(page.getByRole("banner")).toBeHidden();
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expect(page.locator("#mobile-nav")).toBeHidden();
    await expect(page.getByRole("button", { name: /^Switch to (light|dark) theme$/ })).toBeHidden();
    await expect(page.locator("#contact form")).toBeHidden();
    await expect(toast).toBeHidden();

    // Shown: the name, every section, the contact details.
    await expect(page.getByRole("heading", { level: 1 })).toContainText(site.name);
    for (const section of ["about", "skills", "services", "projects", "resume", "contact"]) {
      await expect(page.locator(`#${section}-heading`)).toBeVisible();
    }
    for (const text of [site.contact.email, site.contact.phone, "linkedin.com/in/", "github.com/"]) {
      await expect(page.locator("#contact").getByText(text).first()).toBeVisible();
    }

    // Dark text on white whatever the theme.
    expect(await luminance(page, "body", "color")).toBeLessThan(0.05);
    expect(await luminance(page, "body", "backgroundColor")).toBe(1);
    expect(await luminance(page, "#about p", "color")).toBeLessThan(0.2);

    // External links print their address; the contact links already show theirs.
    const project = site.projects[0]!;
    const after = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((a) => getComputedStyle(a, "::after").content);
    expect(await after(`#projects a[href="${project.githubUrl}"]`)).toContain(project.githubUrl);
    expect(await after(`#resume a[href="${site.resume.url}"]:visible`)).toContain(site.resume.url);
    expect(await after(`#contact a[href="${site.contact.linkedinUrl}"]`)).toBe("none");
    expect(await after(`#contact a[href^="mailto:"]`)).toBe("none");

    // Sections and cards stay whole on a page.
    const breakInside = (selector: string) =>
      page.locator(selector).evaluateAll((elements) => elements.map((e) => getComputedStyle(e).breakInside));
    expect(new Set(await breakInside("main section"))).toEqual(new Set(["avoid"]));
    expect(new Set(await breakInside("#projects li > div, #skills .grid > div"))).toEqual(new Set(["avoid"]));

    // The PDF a visitor would get (kept with the test's output, to look at).
    const pdf = await page.pdf({ path: info.outputPath(`print-${theme}.pdf`), format: "A4" });
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(pdf.toString("latin1").match(/\/Type\s*\/Page\b/g)?.length).toBeGreaterThan(1);

    // Back on screen nothing of this shows: the header is back, the theme is the chosen one.
    await page.emulateMedia({ media: "screen" });
    await expect(page.getByRole("banner")).toBeVisible();
    const screenBackground = await luminance(page, "body", "backgroundColor");
    if (theme === "dark") expect(screenBackground).toBeLessThan(0.01);
    else expect(screenBackground).toBe(1);
  });
}
