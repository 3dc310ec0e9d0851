import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DescFile, type DescMethod, type DescService, getOption, hasOption } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { route } from "../../gen/callercontext/v1/options_pb.ts";
import { methodPolicyOf } from "../../src/pipeline/method-policy.ts";
import { runCli, runCliJson } from "../helpers/cli-runner.ts";
import { createGrpcClient } from "../helpers/grpc-client.ts";
import { callWithBytes } from "../helpers/raw-grpc.ts";
import { type ServerProcess, startServerProcess } from "../helpers/server-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { ADMIN_TOKEN } from "../helpers/test-server.ts";

// The admin API is off the public listener by default: every admin method,
// as the proto's access option names them, answers 404 there over REST and
// Connect (UNIMPLEMENTED, gRPC's 404, over gRPC), and is served on a loopback
// listener of its own, which the CLI finds by itself. ADMIN_LISTEN=public is
// the way back. On PostgreSQL when DATABASE_URL is set, embedded otherwise.

const GEN = new URL("../../gen/callercontext/v1/", import.meta.url);
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };
// Every admin method is called without a token on purpose; the failed-auth limit has a suite of its own.
const MANY_REFUSALS = { AUTH_FAILURES_PER_MINUTE: "100000" };

let root: string;
let database: TestDatabase | undefined;
let byDefault: ServerProcess;
let wayBack: ServerProcess;
let adminUrl: string;
let defaultDataDir: string;
const adminMethods: { service: DescService; method: DescMethod }[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "cc-admin-listener-"));
  if (process.env.DATABASE_URL) database = await createTestDatabase();
  // Every method of every service in the proto whose access option says admin: none is hand-listed here.
  for (const name of (await readdir(GEN)).filter((file) => file.endsWith("_pb.ts"))) {
    const module: Record<string, unknown> = await import(new URL(name, GEN).href);
    for (const file of Object.values(module).filter(isDescFile)) {
      for (const service of file.services) {
        for (const method of service.methods) {
          if (methodPolicyOf(method).access === "admin") adminMethods.push({ service, method });
        }
      }
    }
  }
  defaultDataDir = join(root, "default");
  const backDataDir = join(root, "back");
  await mkdir(defaultDataDir, { mode: 0o700 });
  await mkdir(backDataDir, { mode: 0o700 });
  const env = database?.env ?? { DATABASE_URL: "" };
  [byDefault, wayBack] = await Promise.all([
    startServerProcess({ ...env, ...MANY_REFUSALS, REDIS_URL: "", DATA_DIR: defaultDataDir, ADMIN_LISTEN: "" }),
    startServerProcess({ ...env, ...MANY_REFUSALS, REDIS_URL: "", DATA_DIR: backDataDir, ADMIN_LISTEN: "public" }),
  ]);
  adminUrl = loggedUrl(byDefault, "admin API listening");
});

afterAll(async () => {
  await Promise.all([byDefault?.stop(), wayBack?.stop()]);
  await database?.drop();
  await rm(root, { recursive: true, force: true });
});

function isDescFile(value: unknown): value is DescFile {
  return typeof value === "object" && value !== null && (value as DescFile).kind === "file";
}

function loggedUrl(server: ServerProcess, msg: string): string {
  for (const line of server.output.filter((text) => text.startsWith("{"))) {
    const entry = JSON.parse(line);
    if (entry.msg === msg) return entry.url;
  }
  throw new Error(`no "${msg}" line:\n${server.output.join("\n")}`);
}

/** The method's REST route with every path parameter filled in. */
function restOf(method: DescMethod): { verb: string; path: string } | undefined {
  if (!hasOption(method, route)) return undefined;
  const option = getOption(method, route);
  return { verb: option.method, path: option.path.replace(/\{\w+\}/g, "x") };
}

async function rest(baseUrl: string, method: DescMethod, headers: Record<string, string>): Promise<number> {
  const { verb, path } = restOf(method)!;
  const withBody = verb !== "GET" && verb !== "DELETE";
  const response = await fetch(new URL(path, baseUrl), {
    method: verb,
    headers: withBody ? { ...headers, "content-type": "application/json" } : headers,
    body: withBody ? "{}" : undefined,
  });
  await response.arrayBuffer();
  return response.status;
}

async function connect(baseUrl: string, service: DescService, method: DescMethod, headers: Record<string, string>) {
  const response = await fetch(new URL(`/${service.typeName}/${method.name}`, baseUrl), {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", "connect-protocol-version": "1" },
    body: "{}",
  });
  await response.arrayBuffer();
  return response.status;
}

async function grpcCode(baseUrl: string, service: DescService, method: DescMethod, headers: Record<string, string>) {
  const client = createGrpcClient(baseUrl);
  try {
    const answer = await callWithBytes(client, `/${service.typeName}/${method.name}`, Buffer.alloc(0), headers, 30_000);
    return grpc.status[answer.code];
  } finally {
    client.close();
  }
}

/** Each admin method's answer from `call` on the public port and on the admin listener. */
async function answers<T>(
  call: (baseUrl: string, service: DescService, method: DescMethod, headers: Record<string, string>) => Promise<T>,
): Promise<{ onPublic: Record<string, T>; onAdmin: Record<string, T> }> {
  const onPublic: Record<string, T> = {};
  const onAdmin: Record<string, T> = {};
  for (const { service, method } of adminMethods) {
    const name = `${service.name}.${method.name}`;
    // With the admin token on the public port: a 404 there is no refusal of the caller but the route's absence.
    onPublic[name] = await call(byDefault.url, service, method, ADMIN);
    // Without a token on the admin listener: the method is there, guarded.
    onAdmin[name] = await call(adminUrl, service, method, {});
  }
  return { onPublic, onAdmin };
}

const every = <T>(value: T) =>
  Object.fromEntries(adminMethods.map((m) => [`${m.service.name}.${m.method.name}`, value]));

describe("the admin API off the public listener by default", () => {
  test("the admin methods are read from the proto's access option", async ({ annotate }) => {
    expect(adminMethods.map((m) => m.method.name)).toContain("CreateAccount");
    expect(adminMethods.length).toBeGreaterThan(10);
    await annotate(`${adminMethods.length} admin methods: ${adminMethods.map((m) => m.method.name).join(", ")}`);
  });

  test("the admin listener is on loopback, apart from the public port", () => {
    expect(new URL(adminUrl).hostname).toBe("127.0.0.1");
    expect(new URL(adminUrl).port).not.toBe(new URL(byDefault.url).port);
  });

  test("REST: every admin route answers 404 on the public port, and 401 without a token on the admin listener", async () => {
    const { onPublic, onAdmin } = await answers(async (baseUrl, _service, method, headers) =>
      restOf(method) === undefined ? "no route" : rest(baseUrl, method, headers),
    );
    const routed = (value: unknown) =>
      Object.fromEntries(
        adminMethods.map((m) => [`${m.service.name}.${m.method.name}`, restOf(m.method) ? value : "no route"]),
      );
    expect(onPublic).toEqual(routed(404));
    expect(onAdmin).toEqual(routed(401));
  });

  test("Connect: every admin method answers 404 on the public port, and 401 without a token on the admin listener", async () => {
    const { onPublic, onAdmin } = await answers(connect);
    expect(onPublic).toEqual(every(404));
    expect(onAdmin).toEqual(every(401));
  });

  test("gRPC: every admin method answers UNIMPLEMENTED on the public port, and UNAUTHENTICATED on the admin listener", async () => {
    const { onPublic, onAdmin } = await answers(grpcCode);
    expect(onPublic).toEqual(every("UNIMPLEMENTED"));
    expect(onAdmin).toEqual(every("UNAUTHENTICATED"));
  });

  test("the CLI with default settings finds the admin listener by itself (DATA_DIR/admin-url)", async () => {
    const created = await runCliJson("", ["accounts", "create", "--name", "Found by itself"], {
      CALLER_CONTEXT_URL: undefined,
      DATA_DIR: defaultDataDir,
    });
    const accountId = created.account_id;
    expect(accountId).toMatch(/^acct_/);
    const read = await fetch(new URL(`/admin/v1/accounts/${accountId}`, adminUrl), { headers: ADMIN });
    expect(read.status).toBe(200);
  });
});

test("the CLI pointed at the public port says where the admin API is instead", async () => {
  const result = await runCli(byDefault.url, ["accounts", "create", "--name", "Wrong port"]);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe(
    `caller-context: ${new URL(byDefault.url).origin} does not serve the admin API (404): point CALLER_CONTEXT_URL ` +
      "at the admin listener (ADMIN_LISTEN; logged as 'admin API listening'), or unset it on the service's host\n",
  );
});

describe("ADMIN_LISTEN=public, the way back", () => {
  test("no admin listener: the admin API is served on the public port over REST, Connect and gRPC", async () => {
    expect(wayBack.output.some((line) => line.includes('"msg":"admin API listening"'))).toBe(false);
    const createAccount = adminMethods.find((m) => m.method.name === "CreateAccount")!;
    expect(await rest(wayBack.url, createAccount.method, ADMIN)).not.toBe(404);
    const created = await fetch(new URL("/admin/v1/accounts", wayBack.url), {
      method: "POST",
      headers: { ...ADMIN, "content-type": "application/json" },
      body: JSON.stringify({ name: "On the public port" }),
    });
    expect(created.status).toBe(200);
    expect(await connect(wayBack.url, createAccount.service, createAccount.method, {})).toBe(401);
    expect(await grpcCode(wayBack.url, createAccount.service, createAccount.method, {})).toBe("UNAUTHENTICATED");
  });

  test("the CLI reaches it at CALLER_CONTEXT_URL", async () => {
    const created = await runCliJson(wayBack.url, ["accounts", "create", "--name", "Way back"]);
    expect(created.account_id).toMatch(/^acct_/);
  });
});
