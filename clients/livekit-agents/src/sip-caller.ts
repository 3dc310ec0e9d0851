import { ParticipantKind, type RemoteParticipant, type Room, RoomEvent } from "@livekit/rtc-node";

// The room's SIP caller, waited for rather than raced: `ctx.waitForParticipant()` answers the first participant
// of any kind, which in a room a web client or another agent joined first is not the phone caller.

/** The room's first SIP participant: one already in the room, or the next to join. */
export function waitForSipCaller(
  room: Pick<Room, "remoteParticipants" | "on" | "off">,
  signal?: AbortSignal,
): Promise<RemoteParticipant> {
  const present = [...room.remoteParticipants.values()].find(isSipCaller);
  if (present !== undefined) return Promise.resolve(present);
  return new Promise((resolve, reject) => {
    const joined = (participant: RemoteParticipant) => {
      if (!isSipCaller(participant)) return;
      room.off(RoomEvent.ParticipantConnected, joined);
      resolve(participant);
    };
    room.on(RoomEvent.ParticipantConnected, joined);
    signal?.addEventListener("abort", () => {
      room.off(RoomEvent.ParticipantConnected, joined);
      reject(signal.reason);
    });
  });
}

function isSipCaller(participant: RemoteParticipant): boolean {
  return participant.kind === ParticipantKind.SIP;
}
