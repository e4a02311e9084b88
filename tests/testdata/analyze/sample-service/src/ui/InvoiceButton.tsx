import { policy } from "../policy.ts";

export function InvoiceButton(props: { tenant: string }) {
  const allowed = policy.evaluate({
    target: { service: "billing", resource: "invoice", action: "download" },
    context: { tenant: props.tenant },
  }).decision === "allow";
  return (
    <button disabled={!allowed}>
      Download (checked with client.evaluate({"{"} target {"}"}))
    </button>
  );
}
