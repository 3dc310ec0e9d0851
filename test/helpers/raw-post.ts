import http from "node:http";
import type { JsonResponse } from "./rest-client.ts";

// A POST whose answer is read even when the server answers before it has read
// the whole body and then closes the connection (a body over its limit):
// fetch reports only the reset, as most HTTP clients would not.

export function postAnsweredEarly(url: string, headers: Record<string, string>, body: string): Promise<JsonResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent: false, headers });
    req.once("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.once("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const answer = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === "string") answer.set(name, value);
        resolve({ status: res.statusCode ?? 0, headers: answer, body: text === "" ? undefined : JSON.parse(text) });
      });
    });
    // Writing the rest of the body fails once the server has closed: the answer, if it came, stands.
    req.once("error", (error) => setTimeout(() => reject(error), 100));
    req.end(body);
  });
}
