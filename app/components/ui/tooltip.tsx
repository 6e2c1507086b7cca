import type { FocusEvent, PointerEvent, ReactElement, ReactNode, Ref } from "react";
import { cloneElement, createContext, useContext, useEffect, useRef, useSyncExternalStore } from "react";

type RadixTooltip = typeof import("@radix-ui/react-tooltip");
type Delays = { delayDuration?: number; skipDelayDuration?: number };
type TriggerProps = {
  ref?: Ref<HTMLElement>;
  onPointerEnter?: (event: PointerEvent<HTMLElement>) => void;
  onPointerLeave?: (event: PointerEvent<HTMLElement>) => void;
  onFocus?: (event: FocusEvent<HTMLElement>) => void;
};

// Radix tooltip with floating-ui is ~20 KB gz, as much as the page's own code:
// it loads when a visitor first points at or focuses a trigger, not with the
// page (docs/performance.md). Until then a trigger is its plain child.
let radix: RadixTooltip | null = null;
let loading: Promise<void> | null = null;
const subscribers = new Set<() => void>();

function loadRadix() {
  loading ??= import("@radix-ui/react-tooltip").then((module) => {
    radix = module;
    for (const notify of subscribers) notify();
  });
}

function useRadix() {
  return useSyncExternalStore(
    (notify) => {
      subscribers.add(notify);
      return () => subscribers.delete(notify);
    },
    () => radix,
    () => null,
  );
}

const DelaysContext = createContext<Delays>({});

/** The delays of every tooltip; each one hands them to Radix once it has loaded. */
export function TooltipProvider({ children, ...delays }: Delays & { children: ReactNode }) {
  return <DelaysContext.Provider value={delays}>{children}</DelaysContext.Provider>;
}

/** A tooltip for an icon-only control; the delays come from the one provider in root.tsx. */
export function Tooltip({ content, children }: { content: ReactNode; children: ReactElement<TriggerProps> }) {
  const Radix = useRadix();
  const delays = useContext(DelaysContext);
  const trigger = useRef<HTMLElement>(null);
  const pointerInside = useRef(false);
  // Radix replaces the trigger element: what the visitor was doing with the
  // old one (pointing, focused) carries over to the new one.
  const handover = useRef<{ open: boolean; focus: boolean } | null>(null);
  if (Radix && !handover.current) {
    const focused = trigger.current !== null && trigger.current === document.activeElement;
    handover.current = { open: pointerInside.current, focus: focused };
  }
  useEffect(() => {
    if (Radix && handover.current?.focus) trigger.current?.focus();
  }, [Radix]);

  if (!Radix) {
    const { props } = children;
    return cloneElement(children, {
      ref: trigger,
      onPointerEnter(event) {
        props.onPointerEnter?.(event);
        pointerInside.current = true;
        loadRadix();
      },
      onPointerLeave(event) {
        props.onPointerLeave?.(event);
        pointerInside.current = false;
      },
      onFocus(event) {
        props.onFocus?.(event);
        loadRadix();
      },
    });
  }

  return (
    <Radix.Provider {...delays}>
      <Radix.Root defaultOpen={handover.current?.open}>
        <Radix.Trigger asChild ref={trigger as Ref<HTMLButtonElement>}>
          {children}
        </Radix.Trigger>
        <Radix.Portal>
          <Radix.Content
            sideOffset={6}
            className="z-50 rounded-md border border-border bg-card px-2.5 py-1.5 text-xs font-medium text-card-foreground shadow-md"
          >
            {content}
          </Radix.Content>
        </Radix.Portal>
      </Radix.Root>
    </Radix.Provider>
  );
}
