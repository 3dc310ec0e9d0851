"""Start, end, start again over gRPC: the second start remembers the first call.

Generate the stubs first (see README.md in this folder), then:
    CALLER_CONTEXT_API_KEY=sk_test_... python3 client.py [host:port]
"""

import os
import sys
import uuid

import grpc

from callercontext.v1 import caller_context_pb2 as pb
from callercontext.v1 import caller_context_pb2_grpc as rpc


def main() -> None:
    target = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:8080"
    auth = [("authorization", f"Bearer {os.environ['CALLER_CONTEXT_API_KEY']}")]
    hints = pb.IdentityHints(ani="+14155550123", external_ids={"crm_id": f"C-{uuid.uuid4().hex[:8]}"})

    with grpc.insecure_channel(target) as channel:
        calls = rpc.CallerContextServiceStub(channel)
        first = calls.StartCall(
            pb.StartCallRequest(call_id=f"call-{uuid.uuid4()}", identity_hints=hints), metadata=auth, timeout=5
        )
        print("first start:", first.customer_ref, pb.Recommendation.Name(first.identity.recommendation))

        calls.EndCall(
            pb.EndCallRequest(
                call_id=first.call_id,
                customer_ref=first.customer_ref,
                intent="billing_question",
                intent_status=pb.INTENT_STATUS_OPEN,
                variables={"preferred_language": "de"},
            ),
            metadata=auth,
            timeout=5,
        )

        second = calls.StartCall(
            pb.StartCallRequest(call_id=f"call-{uuid.uuid4()}", identity_hints=hints), metadata=auth, timeout=5
        )
        print("second start:", second.customer_ref, pb.Recommendation.Name(second.identity.recommendation))
        print("open intents:", [intent.intent for intent in second.open_intents])
        print("variables:", {name: variable.value for name, variable in second.variables.items()})


if __name__ == "__main__":
    main()
