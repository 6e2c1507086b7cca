import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ACTIVE_SECTION_OFFSET, pickActiveSection, type SectionBox } from "~/components/active-section";

const ids = ["home", "about", "skills", "services", "projects", "contact"];

/** Sections laid out one after another, `height` px each, scrolled by `scrollY`. */
function layout(scrollY: number, height = 600): SectionBox[] {
  return ids.map((id, index) => ({ id, top: index * height - scrollY }));
}

describe("pickActiveSection", () => {
  it("returns null when there are no sections", () => {
    expect(pickActiveSection([])).toBeNull();
  });

  it("picks the first section at the top of the page", () => {
    expect(pickActiveSection(layout(0))).toBe("home");
  });

  it("picks the first section even before it reaches the line", () => {
    expect(
      pickActiveSection([
        { id: "home", top: 400 },
        { id: "about", top: 900 },
      ]),
    ).toBe("home");
  });

  it("switches exactly when a section's top crosses 100 px", () => {
    // about starts at 600: its top is at 101 px when scrolled by 499, at 100 px by 500.
    expect(pickActiveSection(layout(499))).toBe("home");
    expect(pickActiveSection(layout(500))).toBe("about");
    expect(pickActiveSection(layout(501))).toBe("about");
  });

  it("honours a custom offset", () => {
    expect(pickActiveSection(layout(400), { offset: 200 })).toBe("about");
    expect(pickActiveSection(layout(399), { offset: 200 })).toBe("home");
  });

  it("picks the last section at the bottom of the page even if it never reaches the line", () => {
    const boxes = layout(2500);
    expect(pickActiveSection(boxes)).toBe("projects");
    expect(pickActiveSection(boxes, { atBottom: true })).toBe("contact");
  });

  it("always picks the last section whose top has passed the line (any scroll, any heights)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: ids.length, maxLength: ids.length }),
        fc.integer({ min: 0, max: 12_000 }),
        (heights, scrollY) => {
          let offset = 0;
          const boxes = ids.map((id, index) => {
            const box = { id, top: offset - scrollY };
            offset += heights[index]!;
            return box;
          });
          const passed = boxes.filter((box) => box.top <= ACTIVE_SECTION_OFFSET);
          const expected = passed.length ? passed[passed.length - 1]!.id : "home";
          expect(pickActiveSection(boxes)).toBe(expected);
        },
      ),
    );
  });
});
