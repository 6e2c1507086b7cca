// The home page's structure, links and head, the 404 page and /healthz,
// against the production build.
import type { Locator } from "@playwright/test";
import { personJsonLd } from "~/lib/json-ld";
import { startAppServer } from "../support/app-server";
import { expect, gotoHydrated, site, test } from "./fixtures";

const NEW_TAB = { target: "_blank", rel: "noopener noreferrer" };

async function expectExternal(link: Locator, href: string) {
  await expect(link).toHaveAttribute("href", href);
  await expect(link).toHaveAttribute("target", NEW_TAB.target);
  await expect(link).toHaveAttribute("rel", NEW_TAB.rel);
}

test.describe("home page structure", () => {
  test.beforeEach(async ({ page }) => {
    const response = await gotoHydrated(page);
    expect(response?.status()).toBe(200);
  });

  test("has the sections in the page's order, with the nav ids", async ({ page }) => {
    const ids = await page
      .locator("main > section")
      .evaluateAll((sections) => sections.map((section) => section.id));
    // Resume sits between Projects and Get In Touch but is not in the nav.
    expect(ids).toEqual(["home", "about", "skills", "services", "projects", "resume", "contact"]);
    const navHrefs = await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link")
      .evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    expect(navHrefs).toEqual(site.nav.map((item) => `#${item.id}`));
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText(
      site.nav.map((item) => item.label),
    );
  });

  test("has landmarks, one h1 and a skip link", async ({ page }) => {
    await expect(page.getByRole("banner")).toHaveCount(1);
    await expect(page.getByRole("main")).toHaveCount(1);
    await expect(page.getByRole("contentinfo")).toContainText(site.footer);
    await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(site.name);
    await expect(page.locator("html")).toHaveAttribute("lang", "en");

    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport();
    await expect(skip).toHaveAttribute("href", "#main");

    // Focus stays visible on the next stops too.
    for (let stop = 0; stop < 3; stop++) {
      await page.keyboard.press("Tab");
      const ring = await page.evaluate(() => {
        const style = getComputedStyle(document.activeElement!);
        return style.outlineStyle !== "none" || style.boxShadow !== "none";
      });
      expect(ring).toBe(true);
    }
  });

  test("hero buttons lead to Projects and Get In Touch", async ({ page }) => {
    const hero = page.locator("#home");
    await expect(hero.getByRole("link", { name: "View My Work" })).toHaveAttribute("href", "#projects");
    await expect(hero.getByRole("link", { name: "Get In Touch" })).toHaveAttribute("href", "#contact");
  });

  test("project cards link to GitHub, and to a demo where there is one", async ({ page }) => {
    const cards = page
      .locator("#projects")
      .getByRole("listitem")
      .filter({ has: page.getByRole("heading", { level: 3 }) });
    await expect(cards).toHaveCount(site.projects.length);
    for (const [index, project] of site.projects.entries()) {
      const card = cards.nth(index);
      await expect(card.getByRole("heading", { level: 3 })).toHaveText(project.title);
      await expect(card).toContainText(project.description);
      await expect(card.getByRole("listitem")).toHaveText([...project.technologies]);
      await expectExternal(card.getByRole("link", { name: /GitHub/ }), project.githubUrl);
      const demo = card.getByRole("link", { name: /live demo/i });
      if (project.demoUrl) await expectExternal(demo, project.demoUrl);
      else await expect(demo).toHaveCount(0);
    }
    await expect(page.getByRole("link", { name: /live demo/i })).toHaveCount(
      site.projects.filter((project) => project.demoUrl).length,
    );
    await expectExternal(
      page.getByRole("link", { name: "View All Projects on GitHub" }),
      site.githubProfileUrl,
    );
  });

  test("both resume buttons open the same hosted document", async ({ page }) => {
    const resume = page.locator("#resume");
    await expect(resume).toContainText(site.resume.date);
    await expectExternal(resume.getByRole("link", { name: "Download Resume" }), site.resume.url);
    await expectExternal(resume.getByRole("link", { name: "View Online" }), site.resume.url);
  });

  test("contact list: mailto, tel, LinkedIn and GitHub", async ({ page }) => {
    const list = page.locator("#contact").getByRole("list").first();
    await expect(list.getByRole("link", { name: /email/i })).toHaveAttribute(
      "href",
      `mailto:${site.contact.email}`,
    );
    await expect(list.getByRole("link", { name: /email/i })).not.toHaveAttribute("target", /.*/);
    const tel = await list.getByRole("link", { name: /phone/i }).getAttribute("href");
    expect(tel).toBe(`tel:${site.contact.phone.replace(/[^\d+]/g, "")}`);
    await expectExternal(list.getByRole("link", { name: /linkedin/i }), site.contact.linkedinUrl);
    await expectExternal(list.getByRole("link", { name: /github/i }), site.contact.githubUrl);
  });

  test("every link that leaves the site opens a new tab safely", async ({ page }) => {
    const links = await page.locator("a[href]").evaluateAll((anchors) =>
      anchors.map((a) => ({
        href: a.getAttribute("href")!,
        target: a.getAttribute("target"),
        rel: a.getAttribute("rel"),
      })),
    );
    const external = links.filter((link) => /^https?:/.test(link.href));
    // Every outside address the content names is linked, and nothing else.
    expect(new Set(external.map((link) => link.href))).toEqual(
      new Set([
        site.githubProfileUrl,
        site.resume.url,
        site.contact.linkedinUrl,
        site.contact.githubUrl,
        ...site.projects.flatMap((project) => [project.githubUrl, project.demoUrl ?? []].flat()),
      ]),
    );
    for (const link of external) expect(link, link.href).toMatchObject(NEW_TAB);
    for (const link of links.filter((link) => link.target === "_blank"))
      expect(link.rel, link.href).toBe(NEW_TAB.rel);
  });

  test("the head: title, description, canonical, social cards, theme colours, favicon, JSON-LD", async ({
    page,
  }) => {
    const title = `${site.name} — ${site.role}`;
    await expect(page).toHaveTitle(title);
    const meta = (selector: string) => page.locator(`head meta[${selector}]`);
    await expect(meta('name="description"')).toHaveAttribute("content", site.description);
    await expect(page.locator('head link[rel="canonical"]')).toHaveAttribute("href", site.siteUrl);
    await expect(meta('property="og:type"')).toHaveAttribute("content", "website");
    await expect(meta('property="og:title"')).toHaveAttribute("content", title);
    await expect(meta('property="og:description"')).toHaveAttribute("content", site.description);
    await expect(meta('property="og:url"')).toHaveAttribute("content", site.siteUrl);
    await expect(meta('property="og:site_name"')).toHaveAttribute("content", site.name);
    await expect(meta('name="twitter:card"')).toHaveAttribute("content", "summary_large_image");
    await expect(meta('name="twitter:title"')).toHaveAttribute("content", title);
    await expect(meta('name="twitter:description"')).toHaveAttribute("content", site.description);

    const themeColors = await meta('name="theme-color"').evaluateAll((metas) =>
      metas.map((m) => [m.getAttribute("media"), m.getAttribute("content")]),
    );
    expect(themeColors).toHaveLength(2);
    expect(themeColors.map(([media]) => media).sort()).toEqual([
      "(prefers-color-scheme: dark)",
      "(prefers-color-scheme: light)",
    ]);
    for (const [, color] of themeColors) expect(color).toMatch(/^#[0-9a-f]{6}$/i);

    const favicon = await page.locator('head link[rel="icon"]').getAttribute("href");
    const icon = await page.request.get(favicon!);
    expect(icon.status()).toBe(200);
    expect(icon.headers()["content-type"]).toContain("image/svg+xml");

    // What the Person holds is the unit tests' matter; here: it is on the page, whole.
    const person = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent())!);
    expect(person).toEqual(JSON.parse(personJsonLd(site)));
  });

  test("tooltips open after 700 ms of hover, and at once within 300 ms of another closing", async ({
    page,
  }) => {
    await page.clock.install();
    await gotoHydrated(page);
    await page.clock.pauseAt(Date.now() + 60_000);
    const tooltip = page.getByRole("tooltip");
    const theme = page.getByRole("button", { name: "Switch to light theme" });
    const github = page.locator("#home").getByRole("link", { name: "GitHub profile" });
    const linkedin = page.locator("#home").getByRole("link", { name: "LinkedIn profile" });

    await github.hover();
    await page.clock.runFor(699);
    await expect(tooltip).toHaveCount(0);
    await page.clock.runFor(1);
    await expect(tooltip).toHaveText("GitHub profile");

    // Straight on to the next icon: no delay.
    await linkedin.hover();
    await expect(tooltip).toHaveText("LinkedIn profile");

    // Away for longer than the skip delay: the full delay again.
    await page.mouse.move(0, 400, { steps: 5 });
    await expect(tooltip).toHaveCount(0);
    await page.clock.runFor(301);
    await theme.hover();
    await page.clock.runFor(699);
    await expect(tooltip).toHaveCount(0);
    await page.clock.runFor(1);
    await expect(tooltip.getByText("Switch to light theme")).toBeVisible();
  });

  test("a tooltip shows on keyboard focus and Escape hides it", async ({ page }) => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Contact" }).focus();
    await page.keyboard.press("Tab");
    const theme = page.getByRole("button", { name: "Switch to light theme" });
    // The tooltip opens on keyboard focus; focus stays on the control.
    await expect(theme).toBeFocused();
    await expect(page.getByRole("tooltip").getByText("Switch to light theme")).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("tooltip")).toHaveCount(0);
    await expect(theme).toBeFocused();
  });

  test("tooltips name the icon-only controls on hover", async ({ page }) => {
    const tooltip = page.getByRole("tooltip");
    await page.getByRole("button", { name: "Switch to light theme" }).hover();
    // The label follows the theme through CSS: only the dark-mode text shows.
    await expect(tooltip.getByText("Switch to light theme")).toBeVisible();
    await expect(tooltip.getByText("Switch to dark theme")).toBeHidden();
    // Several steps, as a real pointer: Radix closes on the moves after leaving.
    await page.mouse.move(0, 400, { steps: 5 });
    await expect(tooltip).toHaveCount(0);
    for (const name of ["GitHub profile", "LinkedIn profile", `Email ${site.contact.email}`]) {
      await page.locator("#home").getByRole("link", { name }).hover();
      await expect(tooltip).toHaveText(name);
    }
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole("button", { name: "Menu" }).hover();
    await expect(tooltip).toHaveText("Menu");
  });
});

test("robots.txt and /healthz answer", async ({ request }) => {
  const robots = await request.get("/robots.txt");
  expect(robots.status()).toBe(200);
  expect(await robots.text()).toMatch(/^User-agent: \*/m);
  const health = await request.get("/healthz");
  expect(health.status()).toBe(200);
});

test.describe("404", () => {
  test("an unknown path answers 404 with its texts, a link home and a console error", async ({
    page,
    problems,
  }) => {
    problems.allow(/the server responded with a status of 404/, /404 Error: User attempted/);
    const response = await page.goto("/no/such-page?x=1");
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("404");
    await expect(page.getByText("Oops! Page not found")).toBeVisible();
    await expect(page).toHaveTitle(`Page not found · ${site.name}`);
    await expect(page.locator('meta[name="robots"]')).toHaveAttribute("content", "noindex");
    const home = page.getByRole("link", { name: /return to home/i });
    await expect(home).toHaveAttribute("href", "/");
    await expect
      .poll(() => problems.seen.some((line) => line.startsWith("error: ") && line.includes("/no/such-page")))
      .toBe(true);

    await home.click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(site.name);
  });

  test("the server logs the unknown path", async () => {
    // A server of its own: the shared one's log lives in the runner process.
    const app = await startAppServer({ env: { OUTBOX_DIR: test.info().outputPath("outbox") } });
    try {
      const response = await fetch(`${app.url}/missing-${test.info().workerIndex}`);
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("Oops! Page not found");
      await expect.poll(() => app.output()).toContain(`404: "/missing-${test.info().workerIndex}"`);
    } finally {
      await app.stop();
    }
  });
});
