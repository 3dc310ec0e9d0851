import { readFile } from "node:fs/promises";

// PGlite's two WebAssembly modules (the server and initdb), compiled once per
// process and handed to every PGlite opened in it, on this thread or on the
// embedded database's own (a compiled module is shared with a worker, not
// copied). Left to itself each PGlite compiles the 9 MB server module again,
// and V8 frees the machine code when the instance is gone: a process that opens
// and closes many (the test suite) churns V8's executable memory, where
// Node 24 has been seen to abort (nodejs/node#64500, "Check failed:
// jit_page_->allocations_.erase(addr) == 1"). Held here, the code lives as
// long as the process and is compiled once.

export interface PgliteModules {
  readonly pgliteWasmModule: WebAssembly.Module;
  readonly initdbWasmModule: WebAssembly.Module;
}

let compiled: Promise<PgliteModules> | undefined;

export function pgliteModules(): Promise<PgliteModules> {
  compiled ??= (async () => {
    // The modules ship beside the package's entry point, where PGlite itself looks for them.
    const entry = import.meta.resolve("@electric-sql/pglite");
    const [pgliteWasmModule, initdbWasmModule] = await Promise.all(
      ["pglite.wasm", "initdb.wasm"].map(async (name) => WebAssembly.compile(await readFile(new URL(name, entry)))),
    );
    return { pgliteWasmModule, initdbWasmModule };
  })();
  // A failed compile is not remembered: the next opening tries again.
  compiled.catch(() => {
    compiled = undefined;
  });
  return compiled;
}
