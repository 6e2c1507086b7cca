import type { ReactNode } from "react";
import { cn } from "~/lib/cn";

// Whole class sets per size: two competing size utilities would be settled by stylesheet order.
const sizes = {
  md: "size-10 [&_svg]:size-5",
  lg: "size-11 [&_svg]:size-5",
  xl: "size-11 sm:size-12 [&_svg]:size-6",
} as const;

export function IconTile({ children, size = "md" }: { children: ReactNode; size?: keyof typeof sizes }) {
  return (
    <span
      className={cn("grid shrink-0 place-items-center rounded-md bg-primary/10 text-primary", sizes[size])}
    >
      {children}
    </span>
  );
}
