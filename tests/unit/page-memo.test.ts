// The page memo of app/page-response.server.ts keeps a page only under the path its routes spell:
// another spelling of the same page (repeated slashes, another case) is rendered each time and
// never kept, so it cannot push the real page out (decision 028).
import type { EntryContext } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { pageResponse } from "~/page-response.server";

/** What Remix hands the document's entry for a page: its matched routes and their data. */
function context(routePath?: string): EntryContext {
  const page =
    routePath === undefined ? { id: "routes/_index", index: true } : { id: "page", path: routePath };
  return {
    staticHandlerContext: {
      matches: [{ route: { id: "root", path: "" } }, { route: page }],
      loaderData: { root: { theme: null } },
      actionData: null,
      errors: null,
    },
  } as unknown as EntryContext;
}

/** Asks for `path` `times` times; how many renders that took. */
async function renders(path: string, routePath: string | undefined, times = 2) {
  let count = 0;
  for (let i = 0; i < times; i++) {
    const response = await pageResponse(
      new Request(`http://portfolio.example${path}`),
      200,
      new Headers(),
      context(routePath),
      async () => ({ html: `<!DOCTYPE html><html><body>${path} ${++count}</body></html>`, status: 200 }),
    );
    expect(response.status).toBe(200);
  }
  return count;
}

describe("the page memo", () => {
  it("keeps a page under its own path", async () => {
    expect(await renders("/", undefined)).toBe(1);
    expect(await renders("/about", "about")).toBe(1);
  });

  it.each([
    ["//", undefined],
    ["///", undefined],
    ["/About", "about"],
    ["/ABOUT", "about"],
  ])("renders %s each time and keeps it nowhere", async (path, routePath) => {
    expect(await renders(path, routePath)).toBe(2);
  });

  it("keeps nothing under a route with a dynamic segment, whose spelling it cannot check", async () => {
    expect(await renders("/notes/1", "notes/:id")).toBe(2);
  });
});
