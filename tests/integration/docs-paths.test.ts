// The docs cite files of this repository by path: every such path, and every
// relative link, names a file or folder that exists.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/app-server";

const DOCS = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.join("docs", name)),
];

/** `app/…`-like paths in code spans: the folders of this repository, no wildcards or placeholders. */
const CITED = /`((?:app|server|tests|bench|deploy|social|docs|public|\.ci)\/[\w./[\]$@-]*)`/g;
const LINK = /\]\((?!https?:|#|mailto:)([^)#\s]+)/g;

/** A decision record is dated history: the files it cites may since have moved or gone; its links may not. */
function cited(doc: string): { target: string; resolved: string }[] {
  const text = readFileSync(path.join(ROOT, doc), "utf8");
  const found = [];
  const record = doc.startsWith(path.join("docs", "decisions"));
  for (const [, target] of record ? [] : text.matchAll(CITED)) {
    if (/[<>*]|\.\.\./.test(target!)) continue;
    found.push({ target: target!, resolved: path.join(ROOT, target!) });
  }
  for (const [, target] of text.matchAll(LINK)) {
    found.push({ target: target!, resolved: path.join(ROOT, path.dirname(doc), target!) });
  }
  return found;
}

describe.each(DOCS)("%s", (doc) => {
  it("cites only paths that exist", () => {
    const missing = cited(doc)
      .filter(({ resolved }) => !existsSync(resolved))
      .map(({ target }) => target);
    expect(missing).toEqual([]);
  });
});

// Facts the code can check: what the contact feature logs, and what its folder holds.
describe("the docs follow the contact feature", () => {
  const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

  it("contact.md's Logs section names every outcome the feature logs", () => {
    const source = read("app/contact/events.server.ts") + read("app/contact/alerts/alerts.server.ts");
    const outcomes = new Set<string>();
    for (const [, union] of source.matchAll(/outcome: ((?:"\w+"(?: \| )?)+)/g)) {
      for (const [, name] of union!.matchAll(/"(\w+)"/g)) outcomes.add(name!);
    }
    expect(outcomes.size).toBeGreaterThan(15);
    const logs = read("docs/contact.md").split("## Logs")[1] ?? "";
    expect([...outcomes].filter((outcome) => !logs.includes(`\`${outcome}\``))).toEqual([]);
  });

  it("development.md names every file in app/contact/, by its path there", () => {
    const layout = read("docs/development.md");
    const files = readdirSync(path.join(ROOT, "app/contact"), { recursive: true, encoding: "utf8" }).filter(
      (file) => /\.tsx?$/.test(file),
    );
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((file) => !layout.includes(`\`${file}\``))).toEqual([]);
  });
});
