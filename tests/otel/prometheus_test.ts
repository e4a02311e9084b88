// The telemetry seen by a real Prometheus (Debian's `prometheus`): this test
// serves the metrics with @opentelemetry/exporter-prometheus on a free
// loopback port, starts Prometheus on another with a generated scrape
// configuration pointing at it, drives a local client and an enforcer, and
// asks Prometheus' HTTP query API for policy_decisions_total and
// policy_rate_limit_requests_total (docs/observability.md "Prometheus").
// Waiting for a scrape is waiting on another process: the test polls the
// query API, bounded generously, and sets no timer of the code under test.
//
// Skipped, with the reason, when prometheus cannot be run; .ci/run installs it.
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { createLocalClient } from "../../mod.ts";
import { createEnforcer } from "../../src/enforce/mod.ts";
import { createTelemetry } from "../../src/otel/mod.ts";
import { freePort, listening } from "../_loopback.ts";
import { withTempDir } from "../temp_dir.ts";
import { LONG, LONG_ONLY } from "../_long.ts";
import { whyNotRunnable } from "../_program.ts";
import { bundle, TARGETS } from "./_bundle.ts";

/** The longest the test waits for Prometheus to have scraped what it asks for. */
const SCRAPE_BOUND_MS = 60_000;

const missing = await whyNotRunnable("prometheus", "apt-get install prometheus");
if (missing !== null) console.log(`tests/otel/prometheus_test.ts: skipped: ${missing}`);

/** One series of an instant query: its labels and value. */
interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

/** Asks Prometheus `query` until `done` holds of the answer, within the bound. */
async function queryUntil(
  port: number,
  query: string,
  done: (samples: Sample[]) => boolean,
): Promise<Sample[]> {
  const deadline = Date.now() + SCRAPE_BOUND_MS;
  let samples: Sample[] = [];
  let last = "";
  while (Date.now() < deadline) {
    const response = await fetch(
      `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(query)}`,
    );
    if (response.status === 503) {
      // Listening, not ready yet (it is loading its storage): it says "Service Unavailable".
      last = `${response.status} ${await response.text()}`;
    } else {
      const body = await response.json();
      assert.equal(body.status, "success", JSON.stringify(body));
      samples = body.data.result;
      last = JSON.stringify(samples);
      if (done(samples)) return samples;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(
    `Prometheus did not answer ${query} as expected within ${SCRAPE_BOUND_MS} ms: ${last}`,
  );
}

/** The samples as `label=value,…` → value, for the labels named. */
function byLabels(samples: Sample[], labels: string[]): Record<string, number> {
  return Object.fromEntries(
    samples.map((
      s,
    ) => [labels.map((l) => `${l}=${s.metric[l] ?? ""}`).join(","), Number(s.value[1])]),
  );
}

Deno.test({
  name: "a real Prometheus scrapes policy_decisions_total and policy_rate_limit_requests_total",
  ignore: missing !== null || !LONG,
  fn: () =>
    withTempDir(async (dir) => {
      const exporterPort = freePort();
      const exporter = new PrometheusExporter({
        host: "127.0.0.1",
        port: exporterPort,
        preventServerStart: true,
      });
      await exporter.startServer();
      const meterProvider = new MeterProvider({ readers: [exporter] });
      const telemetry = createTelemetry({ meterProvider });
      const bundlePath = `${dir}/bundle.json`;
      await writeFile(bundlePath, JSON.stringify(bundle(5)));
      const client = await createLocalClient({ bundlePath, allowUnsigned: true, telemetry });
      const enforcer = createEnforcer({ telemetry });
      const { REPORT: report, ADMIN: admin } = TARGETS;
      for (let i = 0; i < 4; i++) {
        const context = { user: i < 3 ? "ann" : "bob" };
        await enforcer.enforce(client.evaluate({ target: report, context }), context);
      }
      for (let i = 0; i < 5; i++) client.evaluate({ target: admin, context: { role: "admin" } });
      client.evaluate({ target: admin, context: { role: "user" } });

      const promPort = freePort();
      const config = `${dir}/prometheus.yml`;
      await writeFile(
        config,
        [
          "global:",
          "  scrape_interval: 200ms",
          "  scrape_timeout: 200ms",
          "scrape_configs:",
          "  - job_name: policy",
          "    static_configs:",
          `      - targets: ["127.0.0.1:${exporterPort}"]`,
          "",
        ].join("\n"),
      );
      const prometheus = new Deno.Command("prometheus", {
        args: [
          `--config.file=${config}`,
          `--storage.tsdb.path=${dir}/data`,
          `--web.listen-address=127.0.0.1:${promPort}`,
          "--log.level=warn",
        ],
        stdout: "null",
        stderr: "piped",
      }).spawn();
      const stderr = prometheus.stderr.pipeThrough(new TextDecoderStream()).getReader();
      let log = "";
      const draining = (async () => {
        for (;;) {
          const { value, done } = await stderr.read();
          if (done) return;
          log += value;
        }
      })();
      try {
        assert.ok(await listening(promPort, prometheus), `prometheus did not start:\n${log}`);
        const decisions = await queryUntil(
          promPort,
          "policy_decisions_total",
          (samples) => samples.length === 3,
        );
        assert.deepEqual(byLabels(decisions, ["policy_decision", "policy_reason", "policy_key"]), {
          "policy_decision=allow,policy_reason=rule,policy_key=admin": 5,
          "policy_decision=deny,policy_reason=default,policy_key=admin": 1,
          "policy_decision=throttle,policy_reason=rule,policy_key=reports": 4,
        });
        assert.equal(decisions[0]!.metric.job, "policy");
        assert.equal(decisions[0]!.metric.otel_scope_name, "@policy/runtime");
        const limited = await queryUntil(
          promPort,
          "policy_rate_limit_requests_total",
          (samples) => samples.length === 2,
        );
        assert.deepEqual(byLabels(limited, ["policy_rate_limit_result", "policy_key"]), {
          "policy_rate_limit_result=admitted,policy_key=reports": 3,
          "policy_rate_limit_result=limited,policy_key=reports": 1,
        });
        // The questions of docs/observability.md, as Prometheus answers them.
        const throttled = await queryUntil(
          promPort,
          'sum by (policy_key) (policy_rate_limit_requests_total{policy_rate_limit_result="limited"})',
          (samples) => samples.length === 1,
        );
        assert.deepEqual(byLabels(throttled, ["policy_key"]), { "policy_key=reports": 1 });
        const version = await queryUntil(
          promPort,
          "policy_bundle_version",
          (samples) => samples.length === 1,
        );
        assert.equal(Number(version[0]!.value[1]), 5);
      } finally {
        prometheus.kill("SIGTERM");
        await prometheus.status;
        await draining;
        await client.close();
        await meterProvider.shutdown();
      }
    }),
});

if (!LONG && missing === null) {
  console.log(`tests/otel/prometheus_test.ts: the real Prometheus skipped here, ${LONG_ONLY}`);
}
