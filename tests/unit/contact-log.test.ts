// The contact log line: one JSON object per line, on stdout, with a time stamp.
import { expect, it, vi } from "vitest";
import { logContactEvent } from "~/contact/events.server";

it("writes one JSON line per event", () => {
  const lines: unknown[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((line: unknown) => lines.push(line) > 0);
  logContactEvent({ outcome: "refused", status: 429, reason: "rate_limited" });
  expect(lines).toHaveLength(1);
  expect(typeof lines[0]).toBe("string");
  expect((lines[0] as string).indexOf("\n")).toBe((lines[0] as string).length - 1);
  expect(JSON.parse(lines[0] as string)).toEqual({
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    event: "contact",
    outcome: "refused",
    status: 429,
    reason: "rate_limited",
  });
});
