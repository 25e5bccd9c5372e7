// The dispatcher: fans committed events out to deliveries and sends the due
// ones, at least once. Any number of dispatchers may run against one
// PostgreSQL database; leases (claimed with SKIP LOCKED) keep each attempt with
// one of them at a time. Claims come in batches of up to twice the slots, kept
// in a local ready queue: a finished attempt's slot is refilled at once, without
// a database round trip per delivery.
import crypto from "node:crypto";
import type { Config } from "../config.ts";
import type { Logger } from "../logger.ts";
import type { Db } from "../services/types.ts";
import { fanOutEvents } from "./fan-out.ts";
import { SuccessBatch } from "./success-batch.ts";
import { claimDueDeliveries, leaseDuration, recordAttempt, releaseDeliveries, sendSigned, type AttemptSettings, type ClaimedDelivery, type Outcome } from "./attempts.ts";

/** Time a queued delivery's lease must still have beyond the send timeout, to record the outcome. */
const LEASE_MARGIN_MS = 1000;

export interface DispatcherOptions {
  db: Db;
  settings: Config["webhooks"];
  log: Logger;
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
  private readonly db: Db;
  private readonly settings: AttemptSettings;
  private readonly log: Logger;
  private readonly clock: () => Date;
  private readonly random: () => number;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly inFlight = new Set<Promise<Outcome | "error">>();
  /** Claimed deliveries waiting for a free slot, in due order. */
  private ready: ClaimedDelivery[] = [];
  private running = false;
  private loop: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private woken = false;
  private backlog = false;
  private slotFreed = false;
  private readonly claimBatch: number;
  private readonly successes: SuccessBatch;

  constructor(options: DispatcherOptions) {
    this.db = options.db;
    this.settings = options.settings;
    this.log = options.log;
    this.clock = options.clock ?? (() => new Date());
    this.random = options.random ?? Math.random;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.concurrency = options.concurrency ?? 16;
    this.claimBatch = Math.max(1, Math.floor(this.concurrency / 4));
    this.owner = options.owner ?? `dispatcher-${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
    this.successes = new SuccessBatch(this.db, this.owner);
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
      const fanned = await fanOutEvents(this.db, this.clock());
      counts.events += fanned.events;
      counts.deliveriesQueued += fanned.deliveries;
      if (fanned.events === 0) break;
    }
    for (;;) {
      const claimed = await this.claim();
      const outcomes: (Outcome | "error")[] = [];
      // Every claimed delivery is attempted before the next claim, refilling slots as they free up.
      while (this.ready.length || this.inFlight.size) {
        this.launchReady();
        const finished = await Promise.race(this.inFlight);
        outcomes.push(finished);
      }
      for (const outcome of outcomes) {
        counts.attempted += 1;
        if (outcome === "succeeded" || outcome === "retrying" || outcome === "failed") counts[outcome] += 1;
      }
      if (claimed === 0) break;
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
        fanOutDue = fanOutDue && (await fanOutEvents(this.db, this.clock())).events > 0;
        const claimed = this.wantsClaim() ? await this.claim() : 0;
        this.launchReady();
        this.backlog = claimed > 0;
        if (claimed > 0 && this.wantsClaim()) continue;
      } catch (error) {
        this.log.error({ err: error }, "webhook dispatcher pass failed");
      }
      if (this.running && !this.woken && !this.slotFreed) fanOutDue = (await this.idle()) || fanOutDue;
      this.slotFreed = false;
    }
    const unsent = this.ready.map((delivery) => delivery.id);
    this.ready = [];
    await Promise.allSettled([...this.inFlight]);
    await releaseDeliveries(this.db, this.owner, unsent).catch((error) => this.log.warn({ err: error }, "could not release unsent webhook deliveries"));
  }

  private freeSlots(): number {
    return this.concurrency - this.inFlight.size;
  }

  /** Room for a claim batch between the attempts in flight and the ready queue (two slots' worth each). */
  private wantsClaim(): boolean {
    return 2 * this.concurrency - this.inFlight.size - this.ready.length >= this.claimBatch;
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

  /** Claims due deliveries into the ready queue; returns how many. */
  private async claim(): Promise<number> {
    const room = 2 * this.concurrency - this.inFlight.size - this.ready.length;
    const claimed = await claimDueDeliveries(this.db, this.owner, this.clock(), leaseDuration(this.settings.timeoutMs), room);
    this.ready.push(...claimed);
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
      this.track(this.attempt(delivery));
    }
  }

  private track(attempt: Promise<Outcome | "error">): Promise<Outcome | "error"> {
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      if (!this.running) return;
      this.launchReady();
      if (this.backlog && this.wantsClaim()) {
        this.slotFreed = true;
        this.wakeUp?.();
      }
    });
    return attempt;
  }

  private async attempt(delivery: ClaimedDelivery): Promise<Outcome | "error"> {
    try {
      const sent = await sendSigned(delivery, delivery.webhook, this.clock(), this.settings);
      const outcome = await recordAttempt(this.db, delivery, sent, this.owner, this.settings, this.random, this.successes);
      if (outcome === "lost-lease") this.log.warn({ delivery: delivery.id }, "webhook delivery lease lost before its outcome was recorded");
      return outcome;
    } catch (error) {
      // The lease expires and another pass retries the attempt.
      this.log.error({ err: error, delivery: delivery.id }, "webhook delivery attempt failed to record");
      return "error";
    }
  }
}
