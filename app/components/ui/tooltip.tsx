// Radix's tooltip for icon-only controls, loaded with the page (decision 040), each hydrated on its own (decision 061).
import * as TooltipPrimitive from "@radix-ui/react-tooltip";
import { Suspense, type ReactElement, type ReactNode } from "react";

export const TooltipProvider = TooltipPrimitive.Provider;

/**
 * Its own <Suspense> boundary: React hydrates it after the page's first commit, where the state Radix sets
 * from its trigger's ref would re-render every tooltip in that commit's task; a press inside hydrates it at once.
 * A parent must not re-render it with a discrete update before then (decision 061).
 */
export function Tooltip({ content, children }: { content: ReactNode; children: ReactElement }) {
  return (
    <Suspense>
      <TooltipPrimitive.Root>
        <TooltipPrimitive.Trigger asChild>{children}</TooltipPrimitive.Trigger>
        <TooltipPrimitive.Portal>
          <TooltipPrimitive.Content
            sideOffset={6}
            className="z-50 rounded-md border border-border bg-card px-2.5 py-1.5 text-xs font-medium text-card-foreground shadow-md"
          >
            {content}
          </TooltipPrimitive.Content>
        </TooltipPrimitive.Portal>
      </TooltipPrimitive.Root>
    </Suspense>
  );
}
