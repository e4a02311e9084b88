/**
 * Runs Debian's nginx as a static bundle origin for the remote client tests:
 * a generated configuration (shown verbatim in docs/remote.md), a temporary
 * prefix folder holding everything nginx writes, and a free loopback port.
 *
 * Needs `--allow-run=nginx` (or `/usr/sbin/nginx`, where Debian puts it),
 * `--allow-net=127.0.0.1`, and read/write of the temporary folder.
 *
 * @module
 */
import { freePort, listening } from "../_loopback.ts";

import { mkdir, rename, utimes, writeFile } from "node:fs/promises";
import { SCOPE } from "./_remote_fixtures.ts";

/**
 * Publishes `text` as the test scope's bundle under `root` the safe way: a
 * temporary file in the same folder, renamed over `bundle.json`, with the
 * modification time `mtime` (nginx's ETag is modification time, in seconds,
 * and size: give each publication a distinct one).
 */
export async function publishBundle(root: string, text: string, mtime: Date): Promise<void> {
  const folder = `${root}/v1/${SCOPE.orgId}/${SCOPE.projectId}/${SCOPE.env}`;
  await mkdir(folder, { recursive: true });
  const temporary = `${folder}/.bundle.json.tmp`;
  await writeFile(temporary, text);
  await utimes(temporary, mtime, mtime);
  await rename(temporary, `${folder}/bundle.json`);
}

// BEGIN nginxConfig (docs/remote.md shows its options and this function verbatim)
/** What {@link nginxConfig} needs. */
export interface NginxConfigOptions {
  /** Folder for nginx's pid file, error log and temporary files. */
  prefix: string;
  /** Folder served: it holds `v1/<orgId>/<projectId>/<env>/bundle.json`. */
  root: string;
  /** Loopback port to listen on. */
  port: number;
  /** The runtime key clients must send as `Authorization: Bearer <key>`. */
  runtimeKey: string;
}

/**
 * An nginx configuration that publishes bundles for the remote client:
 * only `GET /v1/<orgId>/<projectId>/<env>/bundle.json`, only with the right
 * bearer key (401 otherwise, before the file is looked up), with nginx's
 * default ETag (modification time and size) and 304 on If-None-Match.
 */
export function nginxConfig({ prefix, root, port, runtimeKey }: NginxConfigOptions): string {
  return `
# Test-only lines: one unprivileged process and every path in the prefix folder.
master_process off;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 64; }

http {
  access_log off;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  types { application/json json; }
  server_tokens off;

  # One line per accepted runtime key (two during a rotation).
  map $http_authorization $policy_client_allowed {
    default 0;
    "Bearer ${runtimeKey}" 1;
  }

  server {
    listen 127.0.0.1:${port};
    root ${root};

    location ~ "^/v1/[^/]+/[^/]+/(prod|staging|dev|test)/bundle\\.json$" {
      if ($policy_client_allowed = 0) { return 401; }
      etag on;                         # the default, stated: ETag + 304 on If-None-Match
      add_header Cache-Control "no-cache" always;   # caches must revalidate
      try_files $uri =404;
    }

    location / { return 404; }
  }
}
`;
}
// END nginxConfig

/** Where nginx is, or null (with the reason) when it cannot be run. */
export async function findNginx(): Promise<{ path: string } | { path: null; reason: string }> {
  const reasons: string[] = [];
  for (const path of ["nginx", "/usr/sbin/nginx"]) {
    try {
      const { success } = await new Deno.Command(path, {
        args: ["-v"],
        stdout: "null",
        stderr: "null",
      }).output();
      if (success) return { path };
      reasons.push(`${path} -v failed`);
    } catch (error) {
      reasons.push(
        error instanceof Deno.errors.NotFound
          ? `${path} not found`
          : `${path}: ${error instanceof Error ? error.message : error}`,
      );
    }
  }
  const hint = reasons.every((reason) => reason.endsWith("not found"))
    ? " (apt-get install nginx)"
    : "";
  return { path: null, reason: `${reasons.join("; ")}${hint}` };
}

/** A running nginx. */
export interface Nginx extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Stops nginx and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts nginx in the foreground (`-g "daemon off;"`) with the configuration
 * of {@link nginxConfig} written to `<prefix>/nginx.conf`, and waits until it
 * accepts connections.
 */
export async function startNginx(
  nginxPath: string,
  options: Omit<NginxConfigOptions, "port">,
): Promise<Nginx> {
  for (let attempt = 1;; attempt++) {
    const port = freePort();
    const config = `${options.prefix}/nginx.conf`;
    await Deno.writeTextFile(config, nginxConfig({ ...options, port }));
    const child = new Deno.Command(nginxPath, {
      args: [
        "-p",
        options.prefix,
        "-c",
        config,
        "-e",
        `${options.prefix}/error.log`,
        "-g",
        "daemon off;",
      ],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const stop = async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // Already exited.
      }
      await child.status;
    };
    if (await listening(port, child)) {
      return {
        baseUrl: `http://127.0.0.1:${port}`,
        stop,
        [Symbol.asyncDispose]: stop,
      };
    }
    await stop();
    const log = await Deno.readTextFile(`${options.prefix}/error.log`).catch(() => "");
    // Another process may have taken the port between freePort() and nginx.
    if (attempt < 3 && log.includes("Address already in use")) continue;
    throw new Error(`nginx did not start:\n${log}`);
  }
}
