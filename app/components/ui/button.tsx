import type { AnchorHTMLAttributes } from "react";
import { forwardRef } from "react";
import { cn } from "~/lib/cn";

type Variant = "primary" | "outline" | "ghost";
type Size = "md" | "sm" | "icon";

const base =
  "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-md font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:ring-offset-background disabled:pointer-events-none disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0";
// On paper a button is a plain link: backgrounds do not print (docs/social-and-print.md).
const print =
  "print:h-auto print:justify-start print:whitespace-normal print:border-0 print:bg-transparent print:p-0 print:text-foreground print:shadow-none";
const variants: Record<Variant, string> = {
  primary: "bg-primary text-primary-foreground shadow-sm hover:bg-primary/90",
  outline: "border border-input bg-background hover:bg-accent hover:text-accent-foreground",
  ghost: "hover:bg-accent hover:text-accent-foreground",
};
const sizes: Record<Size, string> = {
  md: "h-10 px-4 text-sm",
  sm: "h-9 px-3 text-sm",
  icon: "size-10",
};

export function buttonClass(variant: Variant = "primary", size: Size = "md", className?: string) {
  return cn(base, variants[variant], sizes[size], print, className);
}

type Style = { variant?: Variant; size?: Size };

export const ButtonLink = forwardRef<
  HTMLAnchorElement,
  AnchorHTMLAttributes<HTMLAnchorElement> & Style & { external?: boolean }
>(function ButtonLink({ variant, size, className, external, children, ...props }, ref) {
  return (
    <a
      ref={ref}
      className={buttonClass(variant, size, className)}
      {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}
      {...props}
    >
      {children}
    </a>
  );
});
