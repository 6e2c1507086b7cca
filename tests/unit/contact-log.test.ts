// The contact log line: one JSON object per line, on stdout, with a time stamp.
import { expect, it, vi } from "vitest";
import { logContactEvent } from "~/contact/log.server";

it("writes one JSON line per event", () => {
  const lines: unknown[] = [];
  vi.spyOn(console, "log").mockImplementation((line: unknown) => lines.push(line));
  logContactEvent({ outcome: "refused", status: 429, reason: "rate_limited" });
  expect(lines).toHaveLength(1);
  expect(typeof lines[0]).toBe("string");
  expect((lines[0] as string).includes("\n")).toBe(false);
  expect(JSON.parse(lines[0] as string)).toEqual({
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    event: "contact",
    outcome: "refused",
    status: 429,
    reason: "rate_limited",
  });
});
