/** The section crossing this many px from the viewport top is active (docs/product.md). */
export const ACTIVE_SECTION_OFFSET = 100;

export type SectionBox = { id: string; top: number };

/**
 * Picks the active section from boxes in document order (tops relative to the
 * viewport): the last one whose top has passed the line. Before the first
 * section the first is active; at the very bottom of the page the last is,
 * since a short final section may never reach the line.
 */
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
