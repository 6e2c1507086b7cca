import { Section } from "~/components/section";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import type { SkillGroup } from "~/content/site";

export function Skills({ groups }: { groups: readonly SkillGroup[] }) {
  return (
    <Section
      id="skills"
      eyebrow="Skills"
      title="Skills & Technologies"
      description="The languages, tools and habits I reach for when turning data into working software."
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
