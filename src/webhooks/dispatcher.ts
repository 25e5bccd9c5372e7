// The dispatcher: fans committed events out to deliveries and sends the due
// ones, at least once. Any number of dispatchers may run against one
// PostgreSQL database; leases (claimed with SKIP LOCKED) keep each attempt with
// one of them at a time. Claims come in batches of a slot's worth or more, kept
// in a local ready queue: a slot is refilled as soon as its HTTP exchange ends,
// without a database round trip, and outcomes are recorded behind the sends
// (successes batched), so the database is not on the path of each delivery.
import crypto from "node:crypto";
import type { Config } from "../kernel/config.ts";
import type { Logger } from "../kernel/logger.ts";
import type { DeliveriesRepository, ClaimedDelivery } from "../repositories/deliveries.ts";
import type { SecretBox } from "../kernel/secret-box.ts";
import { fanOutEvents } from "./fan-out.ts";
import { SuccessBatch } from "./success-batch.ts";
import { webhookAttempts } from "../kernel/metrics.ts";
import { leaseDuration, recordAttempt, sendSigned, type AttemptSettings, type Outcome } from "./attempts.ts";
import type { SentAttempt } from "./sender.ts";

/** Time a queued delivery's lease must still have beyond the send timeout, to record the outcome. */
const LEASE_MARGIN_MS = 1000;
/** Claimed deliveries kept ready, in slots' worth: enough that a claim serves many sends. */
const READY_SLOTS_FACTOR = 4;
/** Sent attempts whose outcome may wait to be recorded, in slots' worth, before sending pauses. */
const UNRECORDED_SLOTS_FACTOR = 4;

type Settled = Outcome | "error";

export interface DispatcherOptions {
  /** Where deliveries are claimed and recorded. */
  deliveries: DeliveriesRepository;
  settings: Config["webhooks"];
  log: Logger;
  /** Opens the endpoints' sealed secrets. */
  secrets: SecretBox;
  /** The time the dispatcher believes it is; tests move it forward. */
  clock?: () => Date;
  random?: () => number;
  /** How often to look for work when nothing woke the dispatcher. */
  pollIntervalMs?: number;
  /** Attempts in flight at once; a hanging receiver holds one slot for at most the timeout. */
  concurrency?: number;
  /** Identifies this dispatcher in leases. */
  owner?: string;
}

export interface RunCounts {
  events: number;
  deliveriesQueued: number;
  attempted: number;
  succeeded: number;
  retrying: number;
  failed: number;
}

export class Dispatcher {
  readonly owner: string;
  private readonly deliveries: DeliveriesRepository;
  private readonly settings: AttemptSettings;
  private readonly log: Logger;
  private readonly secrets: SecretBox;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  /** HTTP exchanges in progress: what `concurrency` bounds. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Sent attempts whose outcome is being recorded. */
  private readonly recording = new Set<Promise<Settled>>();
  /** Outcomes recorded while runOnce collects them. */
  private collected: Settled[] | null = null;
  /** Claimed deliveries waiting for a free slot, in due order. */
  private ready: ClaimedDelivery[] = [];
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private backlog = false;
  private slotFreed = false;
  private readonly successes: SuccessBatch;

  constructor(options: DispatcherOptions) {
    this.deliveries = options.deliveries;
    this.settings = options.settings;
    this.log = options.log;
    this.secrets = options.secrets;
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.concurrency = options.concurrency ?? 16;
    this.owner = options.owner ?? `dispatcher-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    this.successes = new SuccessBatch(this.deliveries, this.owner);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.runLoop();
  }

  /** Stops claiming work and waits for the attempts in flight to be recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
    this.loop = null;
  }

  /** Look for work now (a local write just committed an event, say). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Fans out pending events and sends every due delivery, waiting for the outcomes. */
  async runOnce(): Promise<RunCounts> {
    const counts: RunCounts = { events: 0, deliveriesQueued: 0, attempted: 0, succeeded: 0, retrying: 0, failed: 0 };
    for (;;) {
      const fanned = await fanOutEvents(this.deliveries, this.clock());
      counts.events += fanned.events;
      counts.deliveriesQueued += fanned.deliveries;
      if (fanned.events === 0) break;
    }
    this.collected = [];
    try {
      for (;;) {
        const claimed = await this.claim();
        // Every claimed delivery is attempted before the next claim, refilling slots as they free up.
        while (this.ready.length || this.inFlight.size || this.recording.size) {
          this.launchReady();
          await Promise.race([...this.inFlight, ...this.recording]);
        }
        if (claimed === 0) break;
      }
      for (const outcome of this.collected) {
        counts.attempted += 1;
        if (outcome === "succeeded" || outcome === "retrying" || outcome === "failed") counts[outcome] += 1;
      }
    } finally {
      this.collected = null;
    }
    return counts;
  }

  private async runLoop(): Promise<void> {
    let fanOutDue = true;
    while (this.running) {
      fanOutDue ||= this.woken;
      this.woken = false;
      try {
        // A pass that fanned out events looks again at once: a backlog comes in batches.
        fanOutDue = fanOutDue && (await fanOutEvents(this.deliveries, this.clock())).events > 0;
        // A pass that skips the claim (the ready queue is full) leaves `backlog` as it was.
        if (this.wantsClaim()) await this.claim();
        this.launchReady();
        if (this.backlog && this.wantsClaim()) continue;
      } catch (error) {
        this.log.error({ err: error }, "webhook dispatcher pass failed");
      }
      if (this.running && !this.woken && !this.slotFreed) fanOutDue = (await this.idle()) || fanOutDue;
      this.slotFreed = false;
    }
    const unsent = this.ready.map((delivery) => delivery.id);
    this.ready = [];
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
    await this.deliveries
      .release(this.owner, unsent)
      .catch((error) => this.log.warn({ err: error }, "could not release unsent webhook deliveries"));
  }

  /** Free HTTP slots, unless too many sent attempts still wait to be recorded. */
  private freeSlots(): number {
    const unrecordedRoom = UNRECORDED_SLOTS_FACTOR * this.concurrency - this.recording.size;
    return Math.min(this.concurrency - this.inFlight.size, unrecordedRoom);
  }

  private readyRoom(): number {
    return READY_SLOTS_FACTOR * this.concurrency - this.inFlight.size - this.ready.length;
  }

  /** Room in the ready queue for a claim of at least a slot's worth. */
  private wantsClaim(): boolean {
    return this.readyRoom() >= this.concurrency;
  }

  /** Resolves true when the poll interval passed (look for new events), false when woken. */
  private idle(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = null;
        resolve(true);
      }, this.pollIntervalMs);
      this.wakeUp = () => {
        this.wakeUp = null;
        clearTimeout(timer);
        resolve(false);
      };
    });
  }

  /**
   * Claims due deliveries into the ready queue; returns how many. A claim that
   * filled its room leaves a backlog: finished sends wake the loop to claim more.
   */
  private async claim(): Promise<number> {
    const room = this.readyRoom();
    const claimed = await this.deliveries.claimDue(
      this.owner,
      this.clock(),
      leaseDuration(this.settings.timeoutMs),
      room,
    );
    this.ready.push(...claimed);
    this.backlog = claimed.length > 0 && claimed.length === room;
    return claimed.length;
  }

  /**
   * Starts ready deliveries while slots are free. One whose lease could run out
   * before its attempt ends is left for a later claim (by any dispatcher), so an
   * attempt is never sent without a lease covering it.
   */
  private launchReady(): void {
    const now = this.clock().getTime();
    while (this.freeSlots() > 0 && this.ready.length) {
      const delivery = this.ready.shift()!;
      if (delivery.leaseExpiresAt!.getTime() - now < this.settings.timeoutMs + LEASE_MARGIN_MS) continue;
      this.track(this.inFlight, this.attempt(delivery));
    }
  }

  private track<T>(set: Set<Promise<T>>, work: Promise<T>): void {
    set.add(work);
    void work.finally(() => {
      set.delete(work);
      if (!this.running) return;
      this.launchReady();
      if (this.backlog && this.wantsClaim()) {
        this.slotFreed = true;
        this.wakeUp?.();
      }
    });
  }

  /** Sends; the slot is free again once the exchange ends, while its outcome is recorded. */
  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    try {
      const sent = await sendSigned(delivery, delivery.webhook, this.clock(), this.settings, this.secrets);
      this.track(this.recording, this.record(delivery, sent));
    } catch (error) {
      // Nothing was recorded: the lease expires and another pass retries the attempt.
      this.log.error({ err: error, delivery: delivery.id }, "webhook delivery attempt could not be sent");
    }
  }

  private async record(delivery: ClaimedDelivery, sent: SentAttempt): Promise<Settled> {
    let outcome: Settled;
    try {
      outcome = await recordAttempt(
        this.deliveries,
        delivery,
        sent,
        this.owner,
        this.settings,
        this.random,
        this.successes,
      );
      if (outcome === "lost-lease")
        this.log.warn({ delivery: delivery.id }, "webhook delivery lease lost before its outcome was recorded");
    } catch (error) {
      // The lease expires and another pass retries the attempt.
      this.log.error({ err: error, delivery: delivery.id }, "webhook delivery attempt failed to record");
      outcome = "error";
    }
    webhookAttempts.inc({ outcome: outcome.replace("-", "_") });
    this.collected?.push(outcome);
    return outcome;
  }
}
