import { Section } from "~/components/section";
import { Card } from "~/components/ui/card";
import { IconTile } from "~/components/ui/icon-tile";
import { BrainIcon, ChartIcon, CodeIcon, HeartPulseIcon } from "~/components/ui/icons";
import type { SectionCopy, Service, ServiceIcon } from "~/content/site";

const icons: Record<ServiceIcon, typeof BrainIcon> = {
  brain: BrainIcon,
  code: CodeIcon,
  chart: ChartIcon,
  "heart-pulse": HeartPulseIcon,
};

export function Services({ services, copy }: { services: readonly Service[]; copy: SectionCopy }) {
  return (
    <Section id="services" eyebrow="Services" {...copy}>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {services.map((service) => {
          const Icon = icons[service.icon];
          return (
            <Card key={service.title} className="p-6 transition-colors hover:border-primary/50">
              <IconTile size="lg">
                <Icon />
              </IconTile>
              <h3 className="mt-5 text-lg font-semibold">{service.title}</h3>
              <p className="mt-2 leading-7 text-muted-foreground">{service.description}</p>
            </Card>
          );
        })}
      </div>
    </Section>
  );
}
