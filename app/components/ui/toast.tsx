import * as ToastPrimitive from "@radix-ui/react-toast";
import { CloseIcon } from "~/components/ui/icons";
import { cn } from "~/lib/cn";

export type ToastItem = {
  id: number;
  variant?: "default" | "destructive";
  title: string;
  description: string;
  detail?: string;
};

/** Provider, toasts and viewport in one module, so a page can load it lazily (decision 005). */
export default function Toaster({
  toasts,
  onDismiss,
}: {
  toasts: ToastItem[];
  onDismiss: (id: number) => void;
}) {
  return (
    <ToastPrimitive.Provider>
      {toasts.map(({ id, ...toast }) => (
        <Toast key={id} open onOpenChange={(open) => !open && onDismiss(id)} {...toast} />
      ))}
      <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[100] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none print:hidden" />
    </ToastPrimitive.Provider>
  );
}

type ToastProps = Omit<ToastItem, "id"> & { open: boolean; onOpenChange: (open: boolean) => void };

function Toast({ variant = "default", title, description, detail, open, onOpenChange }: ToastProps) {
  return (
    <ToastPrimitive.Root
      open={open}
      onOpenChange={onOpenChange}
      type={variant === "destructive" ? "foreground" : "background"}
      // An error stays until the visitor closes it: it says what to do next.
      duration={variant === "destructive" ? Infinity : undefined}
      className={cn(
        "relative flex w-full items-start justify-between gap-4 rounded-lg border p-4 pr-8 shadow-lg",
        "data-[swipe=end]:translate-x-[var(--radix-toast-swipe-end-x)] data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)]",
        variant === "destructive"
          ? "border-destructive bg-destructive text-destructive-foreground"
          : "border-border bg-card text-card-foreground",
      )}
    >
      <div className="grid gap-1">
        <ToastPrimitive.Title className="text-sm font-semibold">{title}</ToastPrimitive.Title>
        <ToastPrimitive.Description className="grid gap-1 text-sm opacity-90">
          <span>{description}</span>
          {detail ? <span>{detail}</span> : null}
        </ToastPrimitive.Description>
      </div>
      <ToastPrimitive.Close
        aria-label="Close"
        className="absolute top-2 right-2 rounded-md p-1 opacity-70 transition-opacity hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:outline-none"
      >
        <CloseIcon className="size-4" />
      </ToastPrimitive.Close>
    </ToastPrimitive.Root>
  );
}
