import { describe, expect, test } from "vitest";
import { ConfigError, envToConfig } from "../../src/config.ts";
import { parseDatabaseUrl } from "../../src/database/database-url.ts";

describe("DATABASE_URL, as libpq reads it", () => {
  test("a host list becomes one single-host URL per host, in order, without target_session_attrs", () => {
    const address = parseDatabaseUrl(
      "postgres://app:s%40cret@db1:5433,db2,[::1]:6000/calls?target_session_attrs=read-write&sslmode=disable",
    );
    expect(address?.readWrite).toBe(true);
    expect(address?.hosts).toEqual([
      { label: "db1:5433", host: "db1", port: 5433, url: "postgres://app:s%40cret@db1:5433/calls?sslmode=disable" },
      { label: "db2:5432", host: "db2", port: 5432, url: "postgres://app:s%40cret@db2/calls?sslmode=disable" },
      { label: "::1:6000", host: "::1", port: 6000, url: "postgres://app:s%40cret@[::1]:6000/calls?sslmode=disable" },
    ]);
  });

  test("one host without target_session_attrs is taken as it is", () => {
    const address = parseDatabaseUrl("postgresql://postgres@127.0.0.1:5432/postgres");
    expect(address).toEqual({
      hosts: [
        {
          label: "127.0.0.1:5432",
          host: "127.0.0.1",
          port: 5432,
          url: "postgresql://postgres@127.0.0.1:5432/postgres",
        },
      ],
      readWrite: false,
      url: "postgresql://postgres@127.0.0.1:5432/postgres",
    });
  });

  test("a Unix socket given as ?host= leaves the host list empty", () => {
    expect(parseDatabaseUrl("postgres:///calls?host=/var/run/postgresql")).toMatchObject({
      hosts: [],
      url: "postgres:///calls?host=%2Fvar%2Frun%2Fpostgresql",
    });
  });

  test.each([
    "not a url",
    "mysql://db1/calls",
    "postgres://db1:99999/calls",
    "postgres://db1:5432,,db2/calls",
    "postgres://db1/calls?target_session_attrs=standby",
  ])("%s is refused", (url) => {
    expect(parseDatabaseUrl(url)).toBeUndefined();
  });

  test("the configuration refuses a bad one with a line naming DATABASE_URL and the form expected", () => {
    expect(() => envToConfig({ DATABASE_URL: "postgres://db1:5432,db2:x/calls" })).toThrow(ConfigError);
    expect(() => envToConfig({ DATABASE_URL: "postgres://db1:5432,db2:x/calls" })).toThrow(
      /DATABASE_URL: must be postgres:\/\/\[user\[:password\]@\]host\[:port\]\[,host\[:port\]\.\.\.\]/,
    );
  });

  test("the configuration keeps the host list and the read-write choice", () => {
    const config = envToConfig({ DATABASE_URL: "postgres://u@h1:1,h2:2/db?target_session_attrs=read-write" });
    expect(config.database).toMatchObject({
      kind: "postgres",
      address: { readWrite: true, hosts: [{ label: "h1:1" }, { label: "h2:2" }] },
    });
  });
});
