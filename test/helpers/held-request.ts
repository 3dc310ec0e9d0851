import http from "node:http";
import type { JsonResponse } from "./rest-client.ts";

// A REST request that is certainly in flight: the client sends its headers
// with `Expect: 100-continue` and holds the body back. The server has taken
// the request once it answers "100 Continue" (Node dispatches the request at
// that moment); it cannot answer before the body arrives.

export interface HeldRequest {
  /** Sends the body and resolves with the answer (rejects if the connection is lost). */
  release(): Promise<JsonResponse>;
}

export async function holdRequest(baseUrl: string, path: string, token: string, body: unknown): Promise<HeldRequest> {
  const payload = Buffer.from(JSON.stringify(body));
  const req = http.request(new URL(path, baseUrl), {
    method: "POST",
    agent: false,
    headers: {
      "content-type": "application/json",
      "content-length": String(payload.length),
      authorization: `Bearer ${token}`,
      expect: "100-continue",
    },
  });
  const answer = new Promise<JsonResponse>((resolve, reject) => {
    req.once("error", reject);
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("error", reject);
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers))
          if (typeof value === "string") headers.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers, body: text === "" ? undefined : JSON.parse(text) });
      });
    });
  });
  // Until release, a lost connection is reported by the wait below; afterwards by `answer`.
  answer.catch(() => {});
  req.flushHeaders();
  await new Promise<void>((resolve, reject) => {
    req.once("continue", resolve);
    req.once("error", reject);
  });
  return {
    release() {
      req.end(payload);
      return answer;
    },
  };
}
