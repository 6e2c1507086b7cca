// The owner edits app/content/site.ts; its types catch a malformed edit, and
// these rules catch what types cannot (duplicates, blanks, unusable links).
// The copy itself is the owner's: no test pins it.
import { describe, expect, it } from "vitest";
import { site } from "~/content/site";
import { personJsonLd } from "~/lib/json-ld";

function allUrls() {
  return [
    site.siteUrl,
    site.githubProfileUrl,
    site.resume.url,
    site.contact.linkedinUrl,
    site.contact.githubUrl,
    ...site.projects.flatMap((project) => [project.githubUrl, project.demoUrl ?? []].flat()),
  ];
}

describe("content module", () => {
  it("names each section once in the navigation", () => {
    const ids = site.nav.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("has skill groups that each list unique skills", () => {
    for (const group of site.skillGroups) {
      expect(group.skills.length, group.title).toBeGreaterThan(0);
      expect(new Set(group.skills).size, group.title).toBe(group.skills.length);
    }
  });

  it("describes every service", () => {
    for (const service of site.services) expect(service.description.trim(), service.title).not.toBe("");
  });

  it("gives every project a title, a description and its technologies", () => {
    for (const project of site.projects) {
      expect(project.title.trim()).not.toBe("");
      expect(project.description.trim()).not.toBe("");
      expect(project.technologies.length).toBeGreaterThan(0);
    }
    // Titles key the cards (React keys, accessible names): they must differ.
    expect(new Set(site.projects.map((project) => project.title)).size).toBe(site.projects.length);
  });

  it("uses https for every external URL, and valid URLs", () => {
    for (const url of allUrls()) {
      expect(new URL(url).protocol, url).toBe("https:");
    }
  });

  it("points the GitHub links at the owner's profile", () => {
    expect(site.contact.githubUrl).toBe(site.githubProfileUrl);
    for (const project of site.projects) {
      expect(project.githubUrl.startsWith(`${site.githubProfileUrl}/`), project.githubUrl).toBe(true);
    }
  });

  it("has contact details usable in mailto: and tel: links", () => {
    expect(site.contact.email).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);
    expect(site.contact.phone.replace(/[^\d+]/g, "")).toMatch(/^\+?\d{7,15}$/);
  });
});

describe("personJsonLd", () => {
  it("describes the owner from the content module", () => {
    const person = JSON.parse(personJsonLd(site));
    expect(person).toMatchObject({
      "@context": "https://schema.org",
      "@type": "Person",
      name: site.name,
      jobTitle: site.role,
      url: site.siteUrl,
      email: `mailto:${site.contact.email}`,
      sameAs: [site.contact.linkedinUrl, site.contact.githubUrl],
    });
  });

  it("cannot close the script element it is embedded in", () => {
    const json = personJsonLd({ ...site, name: "</script><script>alert(1)</script>" });
    expect(json).not.toContain("<");
    expect(JSON.parse(json).name).toBe("</script><script>alert(1)</script>");
  });
});
