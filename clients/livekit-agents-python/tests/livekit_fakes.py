"""LiveKit's server side, which the tests have no server for: a room that participants join, and the job's context.

The JobContext itself is livekit-agents' own; only the room under it is fake, and only in what the server would
do: report the room connected and announce participants as they become active.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping

from livekit import rtc
from livekit.agents import JobContext, JobExecutorType, JobProcess
from livekit.agents.job import JobAcceptArguments, RunningJobInfo
from livekit.protocol import agent, models
from livekit.rtc._proto import participant_pb2


class ServerRoom(rtc.Room):
    """A room as the LiveKit server shows it to the agent: connected, participants joining."""

    def isconnected(self) -> bool:
        return True

    def join(self, participant: rtc.RemoteParticipant) -> None:
        self._remote_participants[participant.identity] = participant
        self.emit("participant_connected", participant)
        self.emit("participant_active", participant)


def remote_participant(
    identity: str, kind: rtc.ParticipantKind.ValueType, attributes: Mapping[str, str]
) -> rtc.RemoteParticipant:
    """A participant as the server describes it (kind, attributes), in livekit-rtc's own class."""
    owned = participant_pb2.OwnedParticipant()
    owned.info.identity = identity
    owned.info.kind = kind
    owned.info.state = rtc.ParticipantState.PARTICIPANT_STATE_ACTIVE
    owned.info.attributes.update(attributes)
    return rtc.RemoteParticipant(owned)


def sip_caller(attributes: Mapping[str, str]) -> rtc.RemoteParticipant:
    return remote_participant(f"sip_{uuid.uuid4().hex[:8]}", rtc.ParticipantKind.PARTICIPANT_KIND_SIP, attributes)


def web_client() -> rtc.RemoteParticipant:
    return remote_participant(f"web_{uuid.uuid4().hex[:8]}", rtc.ParticipantKind.PARTICIPANT_KIND_STANDARD, {})


def job_context(room: rtc.Room, *, console: bool = False) -> JobContext:
    """livekit-agents' JobContext for a job in `room`; `console` makes it the fake job of console mode."""
    info = RunningJobInfo(
        accept_arguments=JobAcceptArguments(name="", identity="agent", metadata=""),
        job=agent.Job(id=f"AJ_{uuid.uuid4().hex[:8]}", room=models.Room(name="call-room")),
        url="ws://livekit.invalid",
        token="",
        worker_id="worker",
        fake_job=console,
    )
    return JobContext(
        proc=JobProcess(executor_type=JobExecutorType.THREAD, user_arguments=None, http_proxy=None),
        info=info,
        room=room,
        on_connect=lambda: None,
        on_shutdown=lambda _reason: None,
        inference_executor=None,  # type: ignore[arg-type]  # no local models in these jobs
    )


async def shut_down(ctx: JobContext, reason: str = "room closed") -> None:
    """Runs the job's shutdown callbacks as livekit-agents' job process does: all at once, awaited."""
    await asyncio.gather(*(callback(reason) for callback in ctx._shutdown_callbacks))
