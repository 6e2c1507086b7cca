// The methods the request checks let through come from the build's own routes, as Remix matches them:
// a dynamic route with an action takes POST, at any value of its segment and at its single-fetch path.
import type { ServerBuild } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { allowedMethods } from "../../server/request-checks";

const action = async () => null;
const loader = async () => null;

/** A build with a page, an index with an action, a dynamic route with one and a catch-all. */
const build = {
  routes: {
    root: { id: "root", path: "", module: { default: () => null, loader } },
    "routes/_index": { id: "routes/_index", parentId: "root", index: true, module: { action, loader } },
    "routes/about": { id: "routes/about", parentId: "root", path: "about", module: { loader } },
    "routes/blog.$slug": {
      id: "routes/blog.$slug",
      parentId: "root",
      path: "blog/:slug",
      module: { action },
    },
    "routes/$": { id: "routes/$", parentId: "root", path: "*", module: { loader } },
  },
} as unknown as ServerBuild;

describe("allowed methods", () => {
  it.each([
    "/blog/first-post",
    "/blog/another",
    "/blog/first-post/",
    "/blog/first-post.data",
    "/blog/caf%C3%A9",
  ])("%s, a dynamic route with an action, takes POST", (path) => {
    expect(allowedMethods(build, path)).toEqual(["GET", "HEAD", "POST"]);
  });

  it.each(["/", "/_root.data"])("%s, the index with an action, takes POST", (path) => {
    expect(allowedMethods(build, path)).toEqual(["GET", "HEAD", "POST"]);
  });

  it.each(["/about", "/about.data", "/blog", "/blog/a/b", "/nowhere"])("%s takes only reads", (path) => {
    expect(allowedMethods(build, path)).toEqual(["GET", "HEAD"]);
  });

  it("follows the build it is given: a route without an action takes only reads", () => {
    const slug = { ...build.routes["routes/blog.$slug"]!, module: {} };
    const withoutAction = { routes: { ...build.routes, [slug.id]: slug } } as unknown as ServerBuild;
    expect(allowedMethods(withoutAction, "/blog/first-post")).toEqual(["GET", "HEAD"]);
  });
});
