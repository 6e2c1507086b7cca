// A line the owner's screens say after an action: a status when it went well, an alert when not.
import type { ReactNode } from "react";

export function Notice({ ok, children }: { ok: boolean; children: ReactNode }) {
  return (
    <p
      role={ok ? "status" : "alert"}
      className={`rounded-md border px-4 py-3 text-sm wrap-anywhere ${ok ? "border-success/40" : "border-destructive"}`}
    >
      {children}
    </p>
  );
}
