import type { KeyboardEvent } from "react";
import { startTransition, useEffect, useMemo, useRef, useState } from "react";
import { ThemeToggle } from "~/theme/theme-toggle";
import { buttonClass } from "~/components/ui/button";
import { CloseIcon, MenuIcon } from "~/components/ui/icons";
import { Tooltip } from "~/components/ui/tooltip";
import type { NavItem } from "~/content/site";
import { cn } from "~/lib/cn";
import { useActiveSection } from "~/components/active-section";

const MOBILE_NAV_ID = "mobile-nav";

function NavLinks({
  items,
  active,
  onChoose,
  vertical = false,
}: {
  items: readonly NavItem[];
  active: string | null;
  onChoose?: () => void;
  vertical?: boolean;
}) {
  return (
    <ul className={cn("flex", vertical ? "flex-col gap-1" : "items-center gap-1")}>
      {items.map((item) => {
        const current = item.id === active;
        return (
          <li key={item.id}>
            <a
              href={`#${item.id}`}
              onClick={onChoose}
              aria-current={current ? "location" : undefined}
              className={cn(
                "block rounded-md px-3 py-2 text-sm font-medium transition-colors",
                current ? "bg-accent text-foreground" : "text-muted-foreground hover:text-foreground",
                vertical && "py-3 text-base",
              )}
            >
              {item.label}
            </a>
          </li>
        );
      })}
    </ul>
  );
}

/** Its own state, so that dropping the no-JS fallback re-renders only this, not the header's tooltips. */
function MobileNav({
  items,
  active,
  open,
  onChoose,
}: {
  items: readonly NavItem[];
  active: string | null;
  open: boolean;
  onChoose: () => void;
}) {
  const [hydrated, setHydrated] = useState(false);
  // From here on state alone shows the menu: a #mobile-nav left in the URL must not pin it open. A transition,
  // as the header's setOpen from that URL is: both land in one render, and the open menu never blinks shut.
  useEffect(() => startTransition(() => setHydrated(true)), []);
  return (
    <nav
      id={MOBILE_NAV_ID}
      aria-label="Mobile"
      className={cn(
        "border-t border-border/70 bg-background shadow-lg md:hidden",
        open ? "block" : hydrated ? "hidden" : "hidden target:block",
      )}
    >
      <div className="container py-3">
        <NavLinks items={items} active={active} onChoose={onChoose} vertical />
      </div>
    </nav>
  );
}

export function SiteHeader({ name, nav }: { name: string; nav: readonly NavItem[] }) {
  const ids = useMemo(() => nav.map((item) => item.id), [nav]);
  const active = useActiveSection(ids);
  const [open, setOpen] = useState(false);
  const menuButton = useRef<HTMLAnchorElement>(null);

  useEffect(() => {
    // A transition, so the menu button's tooltip hydrates first (decision 061).
    if (window.location.hash === `#${MOBILE_NAV_ID}`) startTransition(() => setOpen(true));
  }, []);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      menuButton.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  const initials = name
    .split(/\s+/)
    .map((part) => part[0])
    .join("");

  // The menu button is a link (the :target panel without JS) with role="button": Space must toggle it too.
  const onMenuKey = (event: KeyboardEvent<HTMLAnchorElement>) => {
    if (event.key === " ") {
      event.preventDefault();
      setOpen((value) => !value);
    }
  };

  return (
    <header className="fixed inset-x-0 top-0 z-40 border-b border-border/70 bg-background/85 backdrop-blur supports-[backdrop-filter]:bg-background/70 print:hidden">
      <div className="container flex h-16 items-center justify-between gap-4">
        <a href="#home" className="flex items-center gap-2 rounded-md font-semibold tracking-tight">
          <span
            aria-hidden="true"
            className="grid size-8 place-items-center rounded-md bg-primary text-sm text-primary-foreground"
          >
            {initials}
          </span>
          <span className="text-sm sm:text-base">{name}</span>
        </a>
        <nav aria-label="Main" className="hidden md:block">
          <NavLinks items={nav} active={active} />
        </nav>
        <div className="flex items-center gap-1">
          <ThemeToggle />
          <Tooltip content="Menu">
            <a
              ref={menuButton}
              href={`#${MOBILE_NAV_ID}`}
              role="button"
              aria-label="Menu"
              aria-expanded={open}
              aria-controls={MOBILE_NAV_ID}
              onClick={(event) => {
                event.preventDefault();
                setOpen((value) => !value);
              }}
              onKeyDown={onMenuKey}
              className={buttonClass("ghost", "icon", "md:hidden")}
            >
              {open ? <CloseIcon /> : <MenuIcon />}
            </a>
          </Tooltip>
        </div>
      </div>
      <MobileNav items={nav} active={active} open={open} onChoose={() => setOpen(false)} />
    </header>
  );
}
