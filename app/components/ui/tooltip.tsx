import type {
  FocusEvent,
  MouseEvent,
  MutableRefObject,
  PointerEvent,
  ReactElement,
  ReactNode,
  Ref,
} from "react";
import {
  cloneElement,
  createContext,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";

type RadixTooltip = typeof import("@radix-ui/react-tooltip");
type TriggerProps = {
  ref?: Ref<HTMLElement>;
  onPointerEnter?: (event: PointerEvent<HTMLElement>) => void;
  onPointerLeave?: (event: PointerEvent<HTMLElement>) => void;
  onPointerDown?: (event: PointerEvent<HTMLElement>) => void;
  onClick?: (event: MouseEvent<HTMLElement>) => void;
  onFocus?: (event: FocusEvent<HTMLElement>) => void;
  onBlur?: (event: FocusEvent<HTMLElement>) => void;
};

// Radix loads when a visitor first points at or focuses a trigger (decision 016); until then a trigger
// is its plain child.
let radix: RadixTooltip | null = null;
let loading: Promise<void> | null = null;
const subscribers = new Set<() => void>();

function loadRadix() {
  loading ??= import("@radix-ui/react-tooltip").then((module) => {
    radix = module;
    for (const notify of subscribers) notify();
  });
}

function subscribe(notify: () => void) {
  subscribers.add(notify);
  return () => {
    subscribers.delete(notify);
  };
}

function useRadix() {
  return useSyncExternalStore(
    subscribe,
    () => radix,
    () => null,
  );
}

/** Delays every tooltip shares, kept here: Radix keeps them in a Provider that would load with the page. */
function createDelays(delayDuration: number, skipDelayDuration: number) {
  let warm = false;
  let cooling: ReturnType<typeof setTimeout> | undefined;
  return {
    openDelay: () => (warm ? 0 : delayDuration),
    opened() {
      clearTimeout(cooling);
      warm = true;
    },
    closed() {
      clearTimeout(cooling);
      cooling = setTimeout(() => (warm = false), skipDelayDuration);
    },
  };
}

const DelaysContext = createContext(createDelays(700, 300));

export function TooltipProvider({
  children,
  delayDuration = 700,
  skipDelayDuration = 300,
}: {
  children: ReactNode;
  delayDuration?: number;
  skipDelayDuration?: number;
}) {
  const delays = useMemo(
    () => createDelays(delayDuration, skipDelayDuration),
    [delayDuration, skipDelayDuration],
  );
  return <DelaysContext.Provider value={delays}>{children}</DelaysContext.Provider>;
}

export function Tooltip({ content, children }: { content: ReactNode; children: ReactElement<TriggerProps> }) {
  const Radix = useRadix();
  const delays = useContext(DelaysContext);
  const [open, setOpenState] = useState(false);
  const isOpen = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const trigger = useRef<HTMLElement | null>(null);
  // Radix replaces the trigger element when it arrives: keyboard focus carries over.
  const refocus = useRef(false);
  // Nor under a press: the click, fired on release, would be lost. Radix comes in after it, then stays.
  const pressed = useRef(false);
  const wrapped = useRef(false);
  const [, pressEnded] = useState(0);
  if (Radix && !pressed.current) wrapped.current = true;
  if (wrapped.current && trigger.current && trigger.current === document.activeElement)
    refocus.current = true;
  const isWrapped = wrapped.current;
  useEffect(() => {
    if (isWrapped && refocus.current) trigger.current?.focus();
  }, [isWrapped]);
  useEffect(() => () => clearTimeout(timer.current), []);

  function endPress() {
    if (!pressed.current) return;
    pressed.current = false;
    pressEnded((count) => count + 1);
  }

  function setOpen(next: boolean) {
    clearTimeout(timer.current);
    timer.current = undefined;
    if (isOpen.current === next) return;
    isOpen.current = next;
    (next ? delays.opened : delays.closed)();
    setOpenState(next);
  }

  const { props } = children;
  const childRef = (children as { ref?: TriggerProps["ref"] }).ref;
  const control = cloneElement(children, {
    ref(node: HTMLElement | null) {
      trigger.current = node;
      if (typeof childRef === "function") childRef(node);
      else if (childRef) (childRef as MutableRefObject<HTMLElement | null>).current = node;
    },
    onPointerEnter(event) {
      props.onPointerEnter?.(event);
      // The element Radix swaps in under a resting pointer must not restart the delay.
      if (event.pointerType === "touch" || timer.current || isOpen.current) return;
      loadRadix();
      const delay = delays.openDelay();
      if (delay === 0) setOpen(true);
      else timer.current = setTimeout(() => setOpen(true), delay);
    },
    onPointerLeave(event) {
      props.onPointerLeave?.(event);
      setOpen(false);
      endPress();
    },
    // A click means the control was found: stay closed until the pointer comes back.
    onPointerDown(event) {
      props.onPointerDown?.(event);
      pressed.current = !wrapped.current;
      setOpen(false);
    },
    onClick(event) {
      props.onClick?.(event);
      // After the click's own default action (a submit button submits its form).
      setTimeout(endPress);
    },
    onFocus(event) {
      props.onFocus?.(event);
      loadRadix();
      if (event.currentTarget.matches(":focus-visible")) setOpen(true);
    },
    onBlur(event) {
      props.onBlur?.(event);
      setOpen(false);
    },
  });

  if (!Radix || !wrapped.current) return control;
  return (
    // `open` is ours; Radix's closing (Escape, click, leave) is kept. Its own
    // pointer opening is switched off (a prevented event skips Radix's
    // handler): after its private delay it would broadcast "a tooltip opened",
    // which closes every open tooltip, this one included.
    <Radix.Provider>
      <Radix.Root open={open} onOpenChange={(next) => !next && setOpen(false)}>
        <Radix.Trigger asChild onPointerMove={(event) => event.preventDefault()}>
          {control}
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
