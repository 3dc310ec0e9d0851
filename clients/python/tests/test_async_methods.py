"""Every method of the asyncio client against the real service."""

from __future__ import annotations

import asyncio
import uuid

from caller_context import AsyncCallerContextClient, IdentityHints, NotFoundError

from service import Account, ServiceProcess


def new_call() -> str:
    return f"py-{uuid.uuid4()}"


def test_every_method_of_the_asyncio_client(service: ServiceProcess, account: Account) -> None:
    async def scenario() -> None:
        async with AsyncCallerContextClient(service.url, account.api_key) as client:
            usage = await client.usage()
            assert usage.key.id == account.key_id

            a, b = await asyncio.gather(
                client.start(new_call(), IdentityHints(ani="+14155550160", external_ids={"crm_id": "A-2"})),
                client.start(new_call(), IdentityHints(ani="+14155550161")),
            )
            identified = await client.identify(a.call_id, IdentityHints(customer_ref=a.customer_ref), verified=True)
            assert identified.identity.recommendation == "reuse"
            ended = await client.end(a.call_id, customer_ref=a.customer_ref, intent="setup")
            assert ended.intents_updated == 1

            assert [c.customer_ref for c in await client.customers.list(ani="+14155550160")] == [a.customer_ref]
            merged = await client.customers.merge(a.customer_ref, b.customer_ref)
            assert set(merged.identifiers.ani) == {"+14155550160", "+14155550161"}
            unlinked = await client.customers.unlink(a.customer_ref, ani="+14155550161")
            assert unlinked.identifiers.ani == ("+14155550160",)
            assert (await client.customers.get(a.customer_ref)).customer_ref == a.customer_ref

            forgotten = await client.customers.forget_me(a.customer_ref)
            assert forgotten.erased and forgotten.identifiers_marked == 2
            lifted = await client.customers.lift_forget_me(ani="+14155550160")
            assert lifted.lifted

            c = await client.start(new_call(), IdentityHints(ani="+14155550162"))
            assert (await client.customers.erase(c.customer_ref)).erased
            try:
                await client.customers.get(c.customer_ref)
            except NotFoundError:
                pass
            else:
                raise AssertionError("an erased customer was still found")

    asyncio.run(scenario())
