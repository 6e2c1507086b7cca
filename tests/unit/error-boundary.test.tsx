// @vitest-environment happy-dom
import { createRemixStub } from "@remix-run/testing";
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ErrorBoundary, meta } from "~/root";

afterEach(cleanup);

function renderRoute(route: { Component?: () => null; loader?: () => never }) {
  const Stub = createRemixStub([{ path: "/", ErrorBoundary, ...route }]);
  render(<Stub />);
}

describe("root ErrorBoundary", () => {
  it("shows a plain message and a way home when rendering throws", async () => {
    const error = new Error("render failed");
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    renderRoute({
      Component: () => {
        throw error;
      },
    });

    expect(await screen.findByText("Unexpected Application Error!")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Error");
    expect(screen.getByRole("link", { name: /return to home/i }).getAttribute("href")).toBe("/");
    // The error is logged, not shown to the visitor.
    expect(logged).toHaveBeenCalledWith(error);
    expect(document.body.textContent).not.toContain("render failed");
  });

  it("says what a 405 is, and logs nothing", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    renderRoute({
      loader: () => {
        throw new Response(null, { status: 405, statusText: "Method Not Allowed" });
      },
      Component: () => null,
    });

    expect(await screen.findByText("Method Not Allowed")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("405");
    expect(logged).not.toHaveBeenCalled();
  });

  it("shows the 404 page for a thrown 404 response", async () => {
    renderRoute({
      loader: () => {
        throw new Response(null, { status: 404 });
      },
      Component: () => null,
    });

    expect(await screen.findByText("Oops! Page not found")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("404");
    expect(screen.getByRole("link", { name: /return to home/i }).getAttribute("href")).toBe("/");
  });
});

describe("root meta", () => {
  const titleFor = (error: unknown) => meta({ error } as Parameters<typeof meta>[0]);

  it("titles the error page, and leaves pages to title themselves", () => {
    expect(titleFor(new Error("x"))).toEqual([{ title: "Unexpected Application Error!" }]);
    expect(titleFor(undefined)).toEqual([]);
    // What Remix hands the route for a POST to a route with no action.
    const notAllowed = { status: 405, statusText: "Method Not Allowed", internal: true, data: null };
    expect(titleFor(notAllowed)).toEqual([{ title: "405 Method Not Allowed" }]);
  });
});
