// A counting semaphore: at most `size` holders at once, the rest wait in order. An abort wakes
// the waiters with its reason.
export class Slots {
  private free: number;
  private readonly waiting: { resolve: () => void; reject: (reason: unknown) => void }[] = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const waiter = { resolve, reject };
      this.waiting.push(waiter);
      signal.addEventListener(
        'abort',
        () => {
          const index = this.waiting.indexOf(waiter);
          if (index >= 0) this.waiting.splice(index, 1);
          reject(signal.reason);
        },
        { once: true },
      );
    });
  }

  /** Hands the slot to the first waiter, or frees it. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.free++;
  }
}
