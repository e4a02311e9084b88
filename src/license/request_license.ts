/**
 * The activation protocol (`docs/license.md`): one HTTPS request that trades
 * an activation key for a signed licence document. Uses `fetch` only.
 *
 * @module
 */
import { parseJson } from "../engine/parse_json.ts";
import { PolicyError } from "../public/policy_error.ts";
import { userAgent } from "../_internal/user_agent.ts";
import { describeFetchFailure } from "../io/describe_fetch_failure.ts";
import { isPermissionDenial } from "../io/system_error.ts";
import { describeThrown } from "../_internal/describe_thrown.ts";
import { type Clock, SYSTEM_CLOCK } from "../public/clock.ts";

/** The activation endpoint's base URL; `POLICY_API_URL` overrides it. */
export const DEFAULT_LICENSE_API_URL = "https://api.policy.example";
/** The path of the activation request, below the base URL. */
export const ACTIVATION_PATH = "v1/licenses/activate";
/** Default time limit of the activation request. */
export const ACTIVATION_TIMEOUT_MS = 10_000;
/** The largest licence document (or error body) read. */
export const MAX_LICENSE_BYTES = 65_536;

/** Options of {@link requestLicense}. */
export interface RequestLicenseOptions {
  /** Base URL (`http:` or `https:`); the request goes to `<apiUrl>/v1/licenses/activate`. */
  apiUrl: string;
  /** The activation key; sent in the body, never printed. */
  activationKey: string;
  /** Time limit in milliseconds (default 10 s). */
  timeoutMs?: number;
  /** The `User-Agent` header (default: the package's, as the remote client sends). */
  userAgent?: string;
  /** The fetch function (default `globalThis.fetch`). */
  fetch?: typeof fetch;
  /** The clock whose timer bounds the request (default: the system clock). */
  clock?: Clock;
}

/**
 * The URL of the activation request for a base URL.
 *
 * @throws {PolicyError} `INVALID_OPTIONS` when it is not an http(s) URL.
 */
export function activationUrl(apiUrl: string): URL {
  let base: URL;
  try {
    base = new URL(apiUrl.endsWith("/") ? apiUrl : `${apiUrl}/`);
  } catch {
    throw new PolicyError("INVALID_OPTIONS", `the activation URL "${apiUrl}" is not a URL`);
  }
  if (base.protocol !== "https:" && base.protocol !== "http:") {
    throw new PolicyError(
      "INVALID_OPTIONS",
      `the activation URL "${apiUrl}" must start with https:// (or http:// for a local stub)`,
    );
  }
  if (base.username !== "" || base.password !== "") {
    throw new PolicyError("INVALID_OPTIONS", "the activation URL must not carry credentials");
  }
  return new URL(ACTIVATION_PATH, base);
}

/**
 * Sends `POST <apiUrl>/v1/licenses/activate` with `{"activationKey": …}`
 * and returns the parsed JSON body of a 200 answer: the licence document,
 * still to be verified.
 *
 * @throws {PolicyError} `ACTIVATION_REFUSED` for a 4xx answer (other than
 * 408 and 429), with the server's message; `ACTIVATION_UNAVAILABLE` for a
 * network error, a timeout, a missing network permission, 408, 429, 5xx,
 * any other status, or a 200 whose body is not JSON or too large;
 * `INVALID_OPTIONS` for an unusable URL.
 */
export async function requestLicense(options: RequestLicenseOptions): Promise<unknown> {
  const url = activationUrl(options.apiUrl);
  const doFetch = options.fetch ?? globalThis.fetch;
  // Only text from elsewhere (the server's message, an error of the network
  // stack) can hold the key; our own words ("HTTP 500") are never redacted,
  // so a key that happens to be "500" does not garble them.
  const redact = (text: string) =>
    options.activationKey === ""
      ? text
      : text.replaceAll(options.activationKey, "<activation key>");
  const unavailable = (
    why: string,
    advice =
      "try again later, or ask for a licence file and install it with 'policy activate --license-file <path>'",
  ) => new PolicyError("ACTIVATION_UNAVAILABLE", `cannot activate: ${why}; ${advice}`);

  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? ACTIVATION_TIMEOUT_MS;
  const clock = options.clock ?? SYSTEM_CLOCK;
  const timer = clock.setTimeout(() => controller.abort(), timeoutMs);
  try {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          "user-agent": options.userAgent ?? userAgent(),
        },
        body: JSON.stringify({ activationKey: options.activationKey }),
        signal: controller.signal,
        redirect: "error",
      });
    } catch (error) {
      if (isPermissionDenial(error)) {
        throw unavailable(
          `network access to ${url.host} is not permitted`,
          `run the policy:activate task, or add --allow-net=${url.host} to deno run`,
        );
      }
      throw unavailable(
        redact(describeFetchError(error, url, controller.signal.aborted, timeoutMs)),
      );
    }
    let body: string;
    try {
      body = await readLimited(response, MAX_LICENSE_BYTES);
    } catch (error) {
      throw unavailable(
        controller.signal.aborted
          ? `${url.origin} did not answer within ${timeoutMs} ms`
          : redact(describeThrown(error)),
      );
    }
    const status = response.status;
    if (status === 200) {
      try {
        return parseJson(body);
      } catch {
        throw unavailable(`${url.href} answered 200 but not with a JSON licence document`);
      }
    }
    const serverMessage = redact(errorMessage(body));
    if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
      throw new PolicyError(
        "ACTIVATION_REFUSED",
        `the activation endpoint refused the activation key (HTTP ${status}${
          serverMessage === "" ? "" : `: ${serverMessage}`
        }); check the key, or contact the vendor`,
      );
    }
    throw unavailable(
      `${url.href} answered HTTP ${status}${serverMessage === "" ? "" : ` (${serverMessage})`}`,
    );
  } finally {
    clock.clearTimeout(timer);
  }
}

/** Reads a response body as UTF-8 text, refusing more than `limit` bytes. */
async function readLimited(response: Response, limit: number): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > limit) throw new Error(`the answer is larger than ${limit} bytes`);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(bytes);
}

/** The server's message from `{"error": {"code", "message"}}` or `{"message"}`, made printable. */
function errorMessage(body: string): string {
  let text = "";
  try {
    const parsed = parseJson(body) as Record<string, unknown>;
    const error = parsed?.error;
    if (typeof error === "object" && error !== null) {
      const { code, message } = error as Record<string, unknown>;
      text = [message, code].filter((v): v is string => typeof v === "string")
        .map(printable).filter((v) => v !== "").join(", ");
    } else if (typeof error === "string") {
      text = error;
    } else if (typeof parsed?.message === "string") {
      text = parsed.message;
    }
  } catch {
    text = "";
  }
  text = printable(text);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** Control characters (a terminal's escape sequences included) become spaces. */
function printable(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ").trim();
}

function describeFetchError(error: unknown, url: URL, aborted: boolean, timeoutMs: number): string {
  if (aborted) return `${url.origin} did not answer within ${timeoutMs} ms`;
  return `cannot reach ${url.origin}: ${describeFetchFailure(error)}`;
}
