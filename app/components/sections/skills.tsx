import { Section } from "~/components/section";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import type { SectionCopy, SkillGroup } from "~/content/site";
import { cn } from "~/lib/cn";

/** The last row's cards widen so no row ends in a gap, whatever the group count. */
function spanClass(index: number, count: number) {
  const lastRowStart = count - (count % 3 || 3);
  const lastRowSize = count - lastRowStart;
  const large =
    index < lastRowStart
      ? "lg:col-span-2"
      : ["lg:col-span-6", "lg:col-span-3", "lg:col-span-2"][lastRowSize - 1];
  const small = count % 2 === 1 && index === count - 1 ? "sm:col-span-2" : undefined;
  return cn(large, small);
}

export function Skills({ groups, copy }: { groups: readonly SkillGroup[]; copy: SectionCopy }) {
  return (
    <Section id="skills" eyebrow="Skills" {...copy} className="bg-muted/40">
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-6">
        {groups.map((group, index) => (
          <Card key={group.title} className={cn("p-6", spanClass(index, groups.length))}>
            <h3 className="font-semibold">{group.title}</h3>
            <ul className="mt-4 flex flex-wrap gap-2">
              {group.skills.map((skill) => (
                <li key={skill}>
                  <Badge>{skill}</Badge>
                </li>
              ))}
            </ul>
          </Card>
        ))}
      </div>
    </Section>
  );
}
