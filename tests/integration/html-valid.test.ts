// The documents the production server sends, checked by the W3C Nu HTML
// checker (the vnu-jar package; it needs Java): `/` in both themes, the 404
// page and the page a no-JS contact post with an invalid field gets back.
// One Java run checks them all (the checker takes seconds to start).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startAppServer, type AppServer } from "../support/app-server";
import { BROWSER_HEADERS, postForm } from "../support/contact";

const VNU_JAR = join(ROOT, "node_modules/vnu-jar/build/dist/vnu.jar");

type NuMessage = { type: string; subType?: string; url?: string; lastLine?: number; message: string };

/** Runs the Nu checker once over the files; its errors (and its own failures) as readable lines. */
function nuErrors(files: Record<string, string>): string[] {
  const java = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (java.error || java.status !== 0) {
    throw new Error(
      `The Nu HTML checker needs Java on the PATH (Debian: default-jre-headless): ${java.error}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "nu-"));
  try {
    const paths = Object.entries(files).map(([name, html]) => {
      const path = join(dir, `${name}.html`);
      writeFileSync(path, html);
      return path;
    });
    const run = spawnSync("java", ["-jar", VNU_JAR, "--format", "json", "--errors-only", ...paths], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    // The checker writes its JSON report to stderr (after any JVM notice) and exits 1 on errors.
    if (run.error) throw run.error;
    const { messages } = JSON.parse(run.stderr.slice(run.stderr.indexOf("{"))) as { messages: NuMessage[] };
    return messages
      .filter((m) => m.type !== "info")
      .map((m) => `${m.url?.split("/").pop()}:${m.lastLine ?? "?"}: ${m.type}: ${m.message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A page as React alone would send it: the loader-data scripts after </html>. */
function withStrayScripts(html: string) {
  const body = html.replace("</body></html>", "");
  const at = body.lastIndexOf("<script", body.indexOf("streamController.enqueue"));
  return `${body.slice(0, at)}</body></html>${body.slice(at)}`;
}

describe("every document is valid HTML (W3C Nu HTML checker)", () => {
  let app: AppServer;
  const documents: Record<string, string> = {};
  let errors: string[];

  beforeAll(async () => {
    app = await startAppServer();
    const page = async (path: string, init: RequestInit, status: number) => {
      const res = await fetch(`${app.url}${path}`, init);
      expect(res.status, path).toBe(status);
      expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
      return res.text();
    };
    const choose = await postForm(`${app.url}/action/set-theme`, { theme: "light" }, {});
    const lightCookie = choose.headers.get("Set-Cookie")!.split(";")[0]!;
    documents.dark = await page("/", { headers: BROWSER_HEADERS }, 200);
    documents.light = await page("/", { headers: { ...BROWSER_HEADERS, Cookie: lightCookie } }, 200);
    documents.notFound = await page("/no-such-page", { headers: BROWSER_HEADERS }, 404);
    documents.contactFailure = await page(
      "/?index",
      {
        method: "POST",
        headers: { ...BROWSER_HEADERS, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "Ada", email: "not-an-email", subject: "Hi", message: "Hello" }),
      },
      400,
    );
    // A known-bad copy in the same run shows the checker really reads the files.
    errors = nuErrors({ ...documents, control: withStrayScripts(documents.dark) });
  }, 120_000);
  afterAll(async () => {
    await app?.stop();
  });

  it("checks /, dark and light, the 404 page and the no-JS contact failure page", () => {
    expect(documents.dark).toMatch(/<html lang="en" class="dark"/);
    expect(documents.light).toMatch(/<html lang="en" class="light"/);
    expect(documents.notFound).toContain("Page not found");
    expect(documents.contactFailure).toMatch(/role="alert"/);
  });

  it("finds zero errors in them", () => {
    expect(errors.filter((e) => !e.startsWith("control.html:"))).toEqual([]);
  });

  it("finds the error React's own stream order would make (scripts after </html>)", () => {
    expect(errors.filter((e) => e.startsWith("control.html:"))[0]).toMatch(/error: Stray start tag/);
  });
});
