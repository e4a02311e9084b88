/// <reference lib="dom" />
/**
 * The Signature view: the bundle in the editor through the library's load
 * pipeline (`inspectBundle`, WebCrypto) with the key pasted here, or with
 * none, and which of the four verification states of docs/errors.md
 * ("Loading a bundle") a client given the same key would see (the verdict
 * first, above the key, so that it is in sight as the view opens), with the
 * checksum and the key id. The key stays in memory: it is not part of a
 * share link and never leaves the page.
 *
 * @module
 */
import { inspectBundle, type LoadBundleOptions } from "../src/verify/mod.ts";
import { isPolicyError, type SignatureAlgorithm } from "../src/engine/mod.ts";
import type { App } from "./app_state.ts";
import { byId, h, show } from "./_dom.ts";

/** The four states, as docs/errors.md names them. */
const STATES = [
  ["verified", "a key checked the signature and it matched: a client loads it"],
  ["unsigned", "no signature and no key: a client loads it only with allowUnsigned"],
  ["missing", "a key is given but the bundle has no signature: a client refuses it"],
  ["unverified", "the bundle is signed but no key is given: a client refuses it"],
] as const;

/** What the pipeline said. */
interface Verdict {
  /** One of the four states, or `invalid` when the check failed otherwise. */
  state: typeof STATES[number][0] | "invalid" | "none";
  message: string;
  code: string | null;
}

/** Wires the Signature view to the app. */
export function signaturePanel(app: App): void {
  const algorithm = byId<HTMLSelectElement>("sig-algorithm");
  const key = byId<HTMLTextAreaElement>("sig-key");
  const label = byId("sig-key-label");
  const warning = byId("sig-hmac-warning");
  // The verdict above the key, in sight as the view opens; the facts and the four states below.
  const verdictBox = byId("signature-verdict-box");
  const result = byId("signature-result");
  let generation = 0;

  const onKeyChange = () => {
    const hmac = algorithm.value === "HMAC_SHA256";
    warning.hidden = !hmac;
    label.textContent = hmac
      ? "HMAC secret (64 hex characters; leave empty to see how a client without a key treats the bundle)"
      : "Public key, SPKI PEM (leave empty to see how a client without a key treats the bundle)";
    void render();
  };
  algorithm.addEventListener("change", onKeyChange);
  key.addEventListener("input", () => void render());
  app.subscribe((changed) => {
    if (changed.has("documentText") || changed.has("model")) void render();
  });
  onKeyChange();

  async function render(): Promise<void> {
    const mine = ++generation;
    const { model, documentText } = app.state;
    if (model.kind !== "bundle" || model.compiled === null) {
      show(
        verdictBox,
        h(
          "p",
          { class: "verdict" },
          model.kind === "draft"
            ? "A draft is not signed: 'policy build --signed' signs the bundle it builds."
            : "No bundle to verify: the editor holds no valid bundle.",
        ),
      );
      show(result);
      return;
    }
    const keyText = key.value.trim();
    const options: LoadBundleOptions = keyText === "" ? { allowUnsigned: true } : {
      allowUnsigned: true,
      verify: { algorithm: algorithm.value as SignatureAlgorithm, publicKey: keyText },
    };
    let verdict: Verdict;
    let checksum: string | null = null;
    try {
      const seen = await inspectBundle(documentText, options);
      checksum = seen.status.checksum;
      verdict = verdictOf(seen.signature?.status ?? null, seen.integrity);
    } catch (error) {
      verdict = {
        state: "none",
        code: isPolicyError(error) ? error.code : null,
        message: (error as Error).message,
      };
    }
    if (mine !== generation) return;
    const bundle = model.bundle!;
    const signature = bundle.signature;
    const refused = verdict.state === "invalid" || verdict.state === "none";
    show(
      verdictBox,
      h(
        "p",
        {
          class: `verdict verdict-${
            verdict.state === "verified" || verdict.state === "unsigned" ? verdict.state : "refused"
          }`,
          attrs: { id: "signature-verdict" },
        },
        h("strong", null, refused ? "Refused: " : `${verdict.state}: `),
        verdict.message,
        verdict.code === null ? "" : ` (${verdict.code})`,
      ),
    );
    show(
      result,
      h(
        "dl",
        { class: "facts" },
        h("dt", null, "checksum (computed)"),
        h("dd", { attrs: { id: "signature-checksum" } }, checksum ?? "—"),
        h("dt", null, "checksum (in the bundle)"),
        h("dd", null, bundle.checksum ?? "(none)"),
        h("dt", null, "signature algorithm"),
        h("dd", null, signature?.algorithm ?? "(not signed)"),
        h("dt", null, "key id"),
        h("dd", { attrs: { id: "signature-key-id" } }, signature?.keyId ?? "(not signed)"),
      ),
      h(
        "ul",
        { class: "states", attrs: { "aria-label": "Verification states" } },
        ...STATES.map(([state, meaning]) =>
          h(
            "li",
            { attrs: verdict.state === state ? { "aria-current": "true" } : {} },
            h("strong", null, state),
            meaning,
          )
        ),
      ),
    );
  }
}

function verdictOf(
  status: "verified" | "unsigned" | null,
  integrity: { code: string; message: string } | null,
): Verdict {
  if (integrity === null) {
    return status === "verified"
      ? { state: "verified", code: null, message: "the signature matches the key given." }
      : {
        state: "unsigned",
        code: null,
        message: "the bundle has no signature and no key is given.",
      };
  }
  const code = integrity.code;
  if (code === "BUNDLE_SIGNATURE_MISSING") {
    return { state: "missing", code, message: integrity.message };
  }
  if (code === "BUNDLE_SIGNATURE_UNVERIFIED") {
    return { state: "unverified", code, message: integrity.message };
  }
  return { state: "invalid", code, message: integrity.message };
}
