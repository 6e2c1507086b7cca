// The owner's actions as plain forms, so each works without JavaScript.
import { LOOK } from "./look";

/** One action: a POST form with its one button. */
export function Action({
  intent,
  id,
  label,
  variant = "outline",
  to = "/owner",
}: {
  intent: string;
  id?: string;
  label: string;
  variant?: "primary" | "outline";
  to?: string;
}) {
  return (
    <form method="post" action={to}>
      <input type="hidden" name="intent" value={intent} />
      {id ? <input type="hidden" name="id" value={id} /> : null}
      <button type="submit" className={LOOK[variant]}>
        {label}
      </button>
    </form>
  );
}
