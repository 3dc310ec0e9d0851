import { EventEmitter } from "node:events";
import { waitForSipCaller } from "@caller-context/livekit-agents";
import { ParticipantKind, type RemoteParticipant, RoomEvent } from "@livekit/rtc-node";
import { expect, test } from "vitest";

// The room a LiveKit server would fill (the outside world, with no server here): participants of each kind
// joining, as rtc-node's Room reports them.

function fakeRoom(present: RemoteParticipant[] = []) {
  const events = new EventEmitter();
  return {
    remoteParticipants: new Map(present.map((participant) => [participant.identity, participant])),
    on: (event: string, listener: (...args: any[]) => void) => events.on(event, listener),
    off: (event: string, listener: (...args: any[]) => void) => events.off(event, listener),
    join: (participant: RemoteParticipant) => events.emit(RoomEvent.ParticipantConnected, participant),
    listeners: () => events.listenerCount(RoomEvent.ParticipantConnected),
  };
}

const participant = (identity: string, kind: ParticipantKind) => ({ identity, kind }) as unknown as RemoteParticipant;

test("a web client and an agent joining first are passed over for the SIP caller who joins after them", async () => {
  const room = fakeRoom([participant("browser", ParticipantKind.STANDARD)]);
  const waiting = waitForSipCaller(room as never);
  room.join(participant("other-agent", ParticipantKind.AGENT));
  room.join(participant("sip_+14155550123", ParticipantKind.SIP));
  expect((await waiting).identity).toBe("sip_+14155550123");
  expect(room.listeners()).toBe(0);
});

test("a SIP caller already in the room is answered at once", async () => {
  const room = fakeRoom([participant("browser", ParticipantKind.STANDARD), participant("sip_1", ParticipantKind.SIP)]);
  expect((await waitForSipCaller(room as never)).identity).toBe("sip_1");
});

test("an aborted wait stops listening", async () => {
  const room = fakeRoom();
  const abort = new AbortController();
  const waiting = waitForSipCaller(room as never, abort.signal);
  abort.abort(new Error("job ended"));
  await expect(waiting).rejects.toThrow("job ended");
  expect(room.listeners()).toBe(0);
});
