import { Section } from "~/components/section";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import type { SectionCopy, SkillGroup } from "~/content/site";

export function Skills({ groups, copy }: { groups: readonly SkillGroup[]; copy: SectionCopy }) {
  return (
    <Section
      id="skills"
      eyebrow="Skills"
      {...copy}
      className="bg-muted/40"
    >
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {groups.map((group) => (
          <Card key={group.title} className="p-6">
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
