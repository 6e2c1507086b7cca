// With JavaScript off (project "no-js"): every section's text is there, the
// anchors still move the viewport, the small-screen menu is reachable and the
// theme toggle works as a plain form.
import { expect, expectScrolledTo, site, test } from "./fixtures";

const copy = (section: keyof typeof site.sections) => [
  site.sections[section].title,
  site.sections[section].description ?? "",
];

/** What each part of the page must show, read from the content module. */
const TEXT_BY_PART: Record<string, readonly string[]> = {
  "#home": [
    site.name,
    site.role,
    site.tagline,
    site.location,
    site.availability,
    "View My Work",
    "Get In Touch",
  ],
  "#about": [
    ...copy("about"),
    ...site.about.intro,
    site.education.degree,
    site.education.school,
    site.education.graduation,
    site.education.cgpa,
    site.experience.title,
    site.experience.company,
    site.experience.start,
    site.experience.end,
    site.experience.summary,
    site.stat.value,
    site.stat.label,
  ],
  "#skills": [...copy("skills"), ...site.skillGroups.flatMap((group) => [group.title, ...group.skills])],
  "#services": [
    ...copy("services"),
    ...site.services.flatMap((service) => [service.title, service.description]),
  ],
  "#projects": [
    ...copy("projects"),
    ...site.projects.flatMap((project) => [project.title, project.description, ...project.technologies]),
    "View All Projects on GitHub",
  ],
  "#resume": [...copy("resume"), site.resume.fileLabel, site.resume.date, "Download Resume", "View Online"],
  "#contact": [
    ...copy("contact"),
    site.contact.email,
    site.contact.phone,
    "LinkedIn",
    "GitHub",
    "Name",
    "Subject",
    "Message",
  ],
  footer: [site.footer, site.name],
  "header nav[aria-label=Main]": site.nav.map((item) => item.label),
};

const normalise = (text: string) => text.replace(/\s+/g, " ").trim();

test("every section shows all of its text", async ({ page }) => {
  await page.goto("/");
  for (const [selector, texts] of Object.entries(TEXT_BY_PART)) {
    const part = page.locator(selector);
    await expect(part, selector).toBeVisible();
    // innerText: what is rendered, so text hidden until JS runs would fail here.
    const shown = normalise(await part.innerText());
    for (const text of texts)
      expect(shown, `${selector} shows ${JSON.stringify(text)}`).toContain(normalise(text));
  }
});

test("nav and hero anchors move the viewport, more than once", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce" });
  await page.goto("/");
  const nav = page.getByRole("navigation", { name: "Main" });
  for (const [label, id] of [
    ["Projects", "projects"],
    ["About", "about"],
    ["Contact", "contact"],
    ["Skills", "skills"],
    ["Projects", "projects"],
  ] as const) {
    await nav.getByRole("link", { name: label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`#${id}$`));
    await expectScrolledTo(page, id);
  }
  await nav.getByRole("link", { name: "Home", exact: true }).click();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  await page.getByRole("link", { name: "View My Work" }).click();
  await expectScrolledTo(page, "projects");
});

test.describe("small screens", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("the menu is reachable and a choice moves to the section and closes it", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.goto("/");
    const menu = page.locator("#mobile-nav");
    await expect(page.getByRole("navigation", { name: "Main" })).toBeHidden();
    await expect(menu).toBeHidden();

    await page.getByRole("button", { name: "Menu" }).click();
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("link")).toHaveText(site.nav.map((item) => item.label));

    await menu.getByRole("link", { name: "Services" }).click();
    await expect(page).toHaveURL(/#services$/);
    await expect(menu).toBeHidden();
    await expectScrolledTo(page, "services");

    await page.getByRole("button", { name: "Menu" }).click();
    await expect(menu).toBeVisible();
  });
});

test("the theme toggle posts a form and comes back to the same page in the other theme", async ({
  page,
  problems,
}) => {
  await page.goto("/?from=test");
  await expect(page.locator("html")).toHaveClass("dark");
  const toggle = page.getByRole("button", { name: "Switch to light theme" });
  await expect(toggle).toBeVisible();

  const posted = page.waitForResponse((r) => r.url().endsWith("/action/set-theme"));
  await toggle.click();
  const answer = await posted;
  expect(answer.status()).toBe(303);
  expect(answer.headers()["location"]).toBe("/?from=test");
  await expect(page).toHaveURL(/\/\?from=test$/);
  await expect(page.locator("html")).toHaveClass("light");
  await expect(page.getByRole("button", { name: "Switch to dark theme" })).toBeVisible();

  await page.reload();
  await expect(page.locator("html")).toHaveClass("light");
  await page.getByRole("button", { name: "Switch to dark theme" }).click();
  await expect(page.locator("html")).toHaveClass("dark");
  await expect(page.getByRole("button", { name: "Switch to light theme" })).toBeVisible();
  // Both themes loaded without JavaScript: nothing was refused or logged.
  expect(problems.unexpected()).toEqual([]);
});

test.describe("on a touch screen", () => {
  test.use({ hasTouch: true, viewport: { width: 375, height: 740 } });

  test("a tap opens the menu, and another switches the theme", async ({ page }) => {
    await page.goto("/");
    await page.getByRole("button", { name: "Menu" }).tap();
    await expect(page.locator("#mobile-nav")).toBeVisible();
    await page.getByRole("button", { name: "Switch to light theme" }).tap();
    await expect(page.locator("html")).toHaveClass("light");
  });
});

test("the 404 page needs no JS", async ({ page }) => {
  const response = await page.goto("/nope");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("404");
  await expect(page.getByText("Oops! Page not found")).toBeVisible();
  await page.getByRole("link", { name: /return to home/i }).click();
  await expect(page.getByRole("heading", { level: 1 })).toContainText(site.name);
});
