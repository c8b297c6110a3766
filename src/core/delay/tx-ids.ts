// Which datagram a kernel transmit stamp belongs to (docs/definitions.md#send-instant). The kernel
// numbers a socket's datagrams from 0 once its transmit stamps are on (SO_TIMESTAMPING's OPT_ID,
// a 32-bit counter) and reports each stamp with that number; the sender counts the datagrams it
// hands to the socket the same way, so the number of a frame's first packet is known when it is
// handed over, and the stamp that carries it is that packet's. A stamp is taken only when it is
// plausible: after the packet was handed over and not after it was read back (a counter out of
// step with the kernel's would give another datagram's instant).

/** The sender's copy of the kernel's datagram counter of one socket. */
export class TxCounter {
  private next = 0;
  private on = false;

  /** The kernel's counter starts at 0 with the next datagram (transmit stamps just turned on). */
  start(): void {
    this.on = true;
    this.next = 0;
  }

  /** One datagram handed to the socket: its number, −1 while the counter is not started. */
  hand(): number {
    if (!this.on) return -1;
    const id = this.next;
    this.next = (this.next + 1) >>> 0;
    return id;
  }
}

/**
 * What a stamp with number `id` says of the datagram awaited (number `awaitId`, handed over at
 * `handoverNs`): `take` — it is that datagram's, at `stampNs` (monotonic, read back at `nowNs`);
 * `earlier` — an earlier datagram's (ignored); `missed` — a later datagram's: the awaited one's
 * stamp will not come (the kernel drops stamps when the error queue is full); `implausible` —
 * the awaited number, but stamped before its hand-over (less `slackNs`: the clock conversion's
 * error) or after it was read: the counters are out of step.
 */
export function txVerdict(
  id: number,
  awaitId: number,
  stampNs: number,
  handoverNs: number,
  nowNs: number,
  slackNs: number,
): "take" | "earlier" | "missed" | "implausible" {
  const d = ((id >>> 0) - (awaitId >>> 0)) | 0;
  if (d < 0) return "earlier";
  if (d > 0) return "missed";
  if (stampNs < handoverNs - slackNs || stampNs > nowNs + slackNs) return "implausible";
  return "take";
}
