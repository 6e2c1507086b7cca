// Which section the header marks as active while the visitor scrolls (docs/product.md).
import { startTransition, useEffect, useState } from "react";

export const ACTIVE_SECTION_OFFSET = 100;

export type SectionBox = { id: string; top: number };

// At the page's bottom the last wins: a short one may never reach the line.
export function pickActiveSection(
  sections: readonly SectionBox[],
  { offset = ACTIVE_SECTION_OFFSET, atBottom = false } = {},
): string | null {
  if (sections.length === 0) return null;
  if (atBottom) return sections[sections.length - 1]!.id;
  let active = sections[0]!.id;
  for (const section of sections) {
    if (section.top <= offset) active = section.id;
    else break;
  }
  return active;
}

export function useActiveSection(ids: readonly string[]) {
  const [active, setActive] = useState(ids[0] ?? null);

  useEffect(() => {
    let frame = 0;
    const measure = () => {
      frame = 0;
      const boxes = ids.flatMap((id) => {
        const element = document.getElementById(id);
        return element ? [{ id, top: element.getBoundingClientRect().top }] : [];
      });
      const root = document.documentElement;
      const atBottom = window.innerHeight + window.scrollY >= root.scrollHeight - 2;
      // A transition: the header's tooltips may not have hydrated yet (decision 061).
      startTransition(() => setActive(pickActiveSection(boxes, { atBottom })));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(measure);
    };
    schedule();
    window.addEventListener("scroll", schedule, { passive: true });
    window.addEventListener("resize", schedule);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener("scroll", schedule);
      window.removeEventListener("resize", schedule);
    };
  }, [ids]);

  return active;
}
