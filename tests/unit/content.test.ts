// The owner edits app/content/site.ts; these invariants keep an edit from
// silently breaking what the spec fixes (ids, titles, dates, links).
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
  it("has the six navigation items, in order", () => {
    expect(site.nav.map((item) => [item.id, item.label])).toEqual([
      ["home", "Home"],
      ["about", "About"],
      ["skills", "Skills"],
      ["services", "Services"],
      ["projects", "Projects"],
      ["contact", "Contact"],
    ]);
  });

  it("has the five skill groups with the spec's titles, each with unique skills", () => {
    expect(site.skillGroups.map((group) => group.title)).toEqual([
      "Languages",
      "Tools & Frameworks",
      "Platforms & APIs",
      "Specialties",
      "Soft Skills",
    ]);
    for (const group of site.skillGroups) {
      expect(group.skills.length, group.title).toBeGreaterThan(0);
      expect(new Set(group.skills).size, group.title).toBe(group.skills.length);
    }
  });

  it("has the four services with the spec's titles, each with a description and an icon", () => {
    expect(site.services.map((service) => service.title)).toEqual([
      "Machine Learning Development",
      "Custom Software Development",
      "Data Analytics & Visualization",
      "AI Healthcare Solutions",
    ]);
    for (const service of site.services) {
      expect(service.description.trim()).not.toBe("");
      expect(service.icon).toBeTruthy();
    }
  });

  it("has three projects; only the third (the desktop app) has no demo", () => {
    expect(site.projects).toHaveLength(3);
    expect(site.projects.map((project) => project.demoUrl === null)).toEqual([false, false, true]);
    for (const project of site.projects) {
      expect(project.title.trim()).not.toBe("");
      expect(project.description.trim()).not.toBe("");
      expect(project.technologies.length).toBeGreaterThan(0);
    }
    // Titles key the cards (React keys, accessible names): they must differ.
    expect(new Set(site.projects.map((project) => project.title)).size).toBe(3);
  });

  it("keeps the spec's About facts", () => {
    expect(site.education.degree).toBe("B.Tech in Computer Science");
    expect(site.education.graduation).toMatch(/2026/);
    expect(site.education.cgpa).toMatch(/CGPA/);
    expect(site.experience.title).toMatch(/data science/i);
    expect(site.experience.title).toMatch(/intern/i);
    expect([site.experience.start, site.experience.end]).toEqual(["March 2025", "June 2025"]);
    expect(site.stat).toEqual({ value: "5+", label: "Projects Completed" });
  });

  it("keeps the section headings the spec names", () => {
    expect(site.sections.projects.title).toBe("Featured Projects");
    expect(site.sections.resume.title).toBe("Resume");
    expect(site.sections.contact.title).toBe("Get In Touch");
  });

  it("dates the resume June 2025 and reads © 2025 in the footer", () => {
    expect(site.resume.date).toBe("June 2025");
    expect(site.footer).toBe("© 2025");
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
