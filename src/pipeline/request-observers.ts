import type { FastifyInstance } from "fastify";
import type { Tier } from "../domain/tiers.ts";

// The one completion point of every request, whatever its protocol: each
// request, once answered (or abandoned by its client), is reported exactly
// once to every observer registered here. The access log is one of them.

export type Protocol = "rest" | "connect" | "grpc" | "grpc-web" | "http";

export interface RequestRecord {
  readonly requestId: string;
  readonly protocol: Protocol;
  /** The HTTP method ("POST"). */
  readonly httpMethod: string;
  /** The request path, without its query string. */
  readonly path: string;
  /** "callercontext.v1.CallerContextService", when the request reached a service. */
  readonly service?: string;
  /** "StartCall", when the request reached a method. */
  readonly method?: string;
  /** The REST route template ("/v1/calls/start"), for REST requests. */
  readonly route?: string;
  /** 499 when the client went away before its answer was sent. */
  readonly httpStatus: number;
  /** The outcome as a Connect code name ("ok", "unauthenticated", …), for requests that reached a method. */
  readonly code?: string;
  readonly durationMs: number;
  /** Why a platform webhook was answered "no context", when it was. */
  readonly noContext?: string;
  /** The API key that authenticated the request, if one did. */
  readonly keyId?: string;
  readonly tier?: Tier;
  readonly peer: string;
}

export type RequestObserver = (record: RequestRecord) => void;

export interface RequestObservers {
  /** Adds an observer; the function returned removes it. */
  add(observer: RequestObserver): () => void;
  notify(record: RequestRecord): void;
}

export function createRequestObservers(onObserverError: (error: unknown) => void): RequestObservers {
  const observers: RequestObserver[] = [];
  return {
    add(observer) {
      observers.push(observer);
      return () => {
        const index = observers.indexOf(observer);
        if (index >= 0) observers.splice(index, 1);
      };
    },
    notify(record) {
      for (const observer of observers) {
        try {
          observer(record);
        } catch (error) {
          // An observer's fault must not reach the request or the other observers.
          onObserverError(error);
        }
      }
    },
  };
}

const registries = new WeakMap<FastifyInstance, RequestObservers>();

/** Makes `observers` the registry of the app's requests (done once, by createApp). */
export function attachRequestObservers(app: FastifyInstance, observers: RequestObservers): void {
  registries.set(app, observers);
}

/** Calls `observer` once for every request the app finishes; returns the function that stops it. */
export function onRequestDone(app: FastifyInstance, observer: RequestObserver): () => void {
  const observers = registries.get(app);
  if (observers === undefined) throw new Error("not an app built by createApp");
  return observers.add(observer);
}
