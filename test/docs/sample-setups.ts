// What each route's example in docs/samples needs before it runs, made through the public API of a fresh account:
// the customers it names, whose refs replace SAMPLE_REF in its text. clients/python/tests/test_docs_samples.py
// prepares the Python examples the same way.

export const SAMPLE_URL = "http://127.0.0.1:8080";
/** The customer refs the examples are written with, in order. */
export const SAMPLE_REF = ["6f1c2a3b-9d4e-4f5a-8b7c-0d1e2f3a4b5c", "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d"] as const;

export interface SampleApi {
  /** Starts a call; the ref of the customer it found or made. */
  start(callId: string, ani: string): Promise<string>;
  forgetMe(customerRef: string): Promise<void>;
}

type Setup = (api: SampleApi) => Promise<string[]>;

const CALLER = "+14155550123";
const nothing: Setup = async () => [];
/** call-0001 started from the examples' caller, whose customer is the first ref. */
const startedCall: Setup = async (api) => [await api.start("call-0001", CALLER)];

export const SAMPLE_SETUPS: Record<string, Setup> = {
  startCall: nothing,
  endCall: startedCall,
  identifyCall: startedCall,
  getUsage: nothing,
  getCustomer: startedCall,
  listCustomers: startedCall,
  eraseCustomer: startedCall,
  mergeCustomers: async (api) => [await api.start("call-0001", CALLER), await api.start("call-0002", "+14155550199")],
  unlinkIdentifier: startedCall,
  forgetCustomer: startedCall,
  liftForgetMe: async (api) => {
    const [ref] = await startedCall(api);
    await api.forgetMe(ref!);
    return [ref!];
  },
  check: nothing,
  getContactFigures: nothing,
  exportContactFigures: nothing,
};
