"""Start, end, start again over gRPC: the second start remembers the first call.

Generate the stubs first (see README.md in this folder), then:
    CALLER_CONTEXT_API_KEY=sk_test_... python3 client.py [host:port]
"""

import os
import sys
import uuid

import grpc
import rpc_status_pb2

from callercontext.v1 import caller_context_pb2 as pb
from callercontext.v1 import caller_context_pb2_grpc as rpc
from callercontext.v1 import errors_pb2


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

        # A refused request: INVALID_ARGUMENT, and which fields are wrong in a ValidationFailure detail.
        try:
            calls.StartCall(pb.StartCallRequest(call_id="", identity_hints=pb.IdentityHints()), metadata=auth, timeout=5)
        except grpc.RpcError as error:
            print("refused:", error.code().name, error.details())
            for path, message in validation_issues(error):
                print("  ", ".".join(path), "-", message)


def validation_issues(error: grpc.RpcError) -> list[tuple[list[str], str]]:
    """The ValidationFailure issues in the grpc-status-details-bin trailer, if any."""
    trailer = dict(error.trailing_metadata() or ()).get("grpc-status-details-bin")
    if trailer is None:
        return []
    issues = []
    for detail in rpc_status_pb2.Status.FromString(trailer).details:
        failure = errors_pb2.ValidationFailure()
        if detail.Unpack(failure):
            issues.extend((list(issue.path), issue.message) for issue in failure.issues)
    return issues


if __name__ == "__main__":
    main()
