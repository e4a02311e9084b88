// This module is browser compatible.
/**
 * Why a `fetch` failed, in words. Deno and Node reject with a `TypeError`
 * whose message is only "fetch failed"; the reason (refused connection, DNS
 * failure, TLS error, reset) sits in its `cause`, sometimes one level deeper
 * or inside an `AggregateError` (one error per address tried).
 *
 * @module
 */

/** How deep the cause chain is followed; real chains are two or three long. */
const MAX_DEPTH = 6;

/** What went wrong, with what to check, by what the cause chain says. */
const KINDS: { test: RegExp; what: string }[] = [
  {
    test: /\bECONNREFUSED\b|connection refused/i,
    what: "connection refused: nothing listens at that host and port",
  },
  {
    test: /\b(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL)\b|\bdns error\b|failed to lookup address/i,
    what: "the host name does not resolve (DNS); check the host",
  },
  {
    test:
      /\b(ERR_TLS_\w+|ERR_SSL_\w+|\w*CERT\w*|UNABLE_TO_\w+|EPROTO)\b|certificate|\btls\b|\bssl\b|handshake/i,
    what: "the TLS connection failed; check the server's certificate (issuer, names, dates)",
  },
  {
    test: /\b(ETIMEDOUT|UND_ERR_\w*TIMEOUT)\b|timed? ?out/i,
    what: "the connection timed out",
  },
  {
    test:
      /\b(ECONNRESET|EPIPE|UND_ERR_SOCKET)\b|connection (was )?(closed|reset)|other side closed/i,
    what: "the connection was closed before the answer was complete",
  },
  {
    test: /\b(ENETUNREACH|EHOSTUNREACH)\b|unreachable/i,
    what: "the network or host is unreachable",
  },
];

/**
 * The reason of a failed `fetch` for an error message: a short account of
 * the kind of failure (refused, DNS, TLS, timeout, closed), then the
 * runtime's own words from the whole cause chain, for example
 * `connection refused: nothing listens at that host and port (connect
 * ECONNREFUSED 127.0.0.1:8080)`. Never includes request headers.
 */
export function describeFetchFailure(error: unknown): string {
  const details: string[] = [];
  collect(error, 0, details);
  // "fetch failed" says nothing once a cause says more.
  const specific = details.filter((d) => !/^fetch failed$/i.test(d));
  const detail = (specific.length > 0 ? specific : details).join("; ") || String(error);
  const kind = KINDS.find(({ test }) => test.test(detail));
  return kind === undefined ? detail : `${kind.what} (${detail})`;
}

function collect(value: unknown, depth: number, out: string[]): void {
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null) {
    if (typeof value === "string" && value !== "") add(out, value);
    return;
  }
  const { message, code, errors, cause } = value as {
    message?: unknown;
    code?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  const text = typeof message === "string" ? message.trim() : "";
  if (text !== "") add(out, text);
  // A code the message does not already name (Node's AggregateError has an empty message).
  if (typeof code === "string" && code !== "" && !text.includes(code)) add(out, code);
  if (Array.isArray(errors)) {
    for (const inner of errors.slice(0, 4)) collect(inner, depth + 1, out);
  }
  if (cause !== undefined) collect(cause, depth + 1, out);
}

function add(out: string[], text: string): void {
  if (!out.includes(text)) out.push(text);
}
