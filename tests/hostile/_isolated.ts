/**
 * Hostile-input tests that cannot hang the test run or pollute it: each case
 * runs in its own Worker (a fresh isolate), under a deadline. A case that
 * does not finish in time (a synchronous endless loop included, which no
 * timer in the same isolate could interrupt) has its worker terminated and
 * the test fails as a hang. After the case, the worker checks that the
 * built-in prototypes it started with are untouched and that no promise
 * rejection went unhandled (in a main thread, one ends the process).
 *
 * A test file declares its cases with {@link hostileTest}. In the test
 * runner, each declaration registers a `Deno.test` that starts a worker; in
 * the worker, the same file is imported again and each declaration only
 * records its function, which the worker then runs by name.
 *
 * The worker inherits the test's permissions.
 *
 * @module
 */

/** A case: throws (an assertion) to fail. */
export type HostileCase = () => void | Promise<void>;

/** What the worker reports. */
export interface CaseReport {
  ok: boolean;
  /** Milliseconds the case took in the worker. */
  ms: number;
  message?: string;
  stack?: string;
  /** Own properties added to or removed from a built-in prototype. */
  pollution?: string[];
  /** Promise rejections nobody handled (each would end a Deno process). */
  unhandledRejections?: string[];
}

/** The default deadline of a case, in seconds: a hang detector, not a benchmark. */
export const DEFAULT_DEADLINE_SECONDS = 20;

const registry = new Map<string, HostileCase>();
let inWorker = false;

/** Called by the worker before it imports a test file: declarations then only register. */
export function enterWorkerMode(): void {
  inWorker = true;
}

/** The case named `name`, once the worker has imported its file. */
export function lookupCase(name: string): HostileCase | undefined {
  return registry.get(name);
}

/**
 * Declares a hostile-input case of the test file `moduleUrl` (pass
 * `import.meta.url`). The case fails when it throws, when it takes longer
 * than `seconds`, or when it leaves a built-in prototype changed.
 */
export function hostileTest(
  moduleUrl: string,
  name: string,
  fn: HostileCase,
  options: { seconds?: number; ignore?: boolean } = {},
): void {
  if (inWorker) {
    registry.set(name, fn);
    return;
  }
  const seconds = options.seconds ?? DEFAULT_DEADLINE_SECONDS;
  Deno.test({
    name,
    ignore: options.ignore ?? false,
    sanitizeOps: true,
    sanitizeResources: true,
    fn: async () => {
      const report = await runIsolated(moduleUrl, name, seconds);
      if (report.unhandledRejections !== undefined && report.unhandledRejections.length > 0) {
        throw new Error(`unhandled promise rejections: ${report.unhandledRejections.join("; ")}`);
      }
      if (report.pollution !== undefined && report.pollution.length > 0) {
        throw new Error(`built-in prototypes changed: ${report.pollution.join(", ")}`);
      }
      if (!report.ok) {
        const error = new Error(report.message ?? "the case failed");
        if (report.stack !== undefined) error.stack = report.stack;
        throw error;
      }
    },
  });
}

/**
 * Runs the case `name` of `moduleUrl` in a new worker and returns its
 * report, or throws when no report comes within `seconds` (the worker is
 * terminated) or the worker itself dies.
 */
export async function runIsolated(
  moduleUrl: string,
  name: string,
  seconds: number,
): Promise<CaseReport> {
  const worker = new Worker(new URL("./_worker.ts", import.meta.url).href, { type: "module" });
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await new Promise<CaseReport>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `hang: "${name}" did not finish within ${seconds} s; its worker was terminated`,
            ),
          ),
        seconds * 1000,
      );
      worker.onmessage = (event: MessageEvent<CaseReport>) => resolve(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        reject(new Error(`the worker of "${name}" died: ${event.message}`));
      };
      worker.postMessage({ moduleUrl, name });
    });
  } finally {
    clearTimeout(timer);
    worker.terminate();
  }
}
