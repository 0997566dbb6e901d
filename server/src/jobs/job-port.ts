/**
 * The worker side of worker-queue.ts: a worker process receives its jobs from the parent and
 * answers through the IPC channel `fork` opened. Every message carries the worker's resident
 * memory (`rss`, bytes), so the parent can hold the whole process to its ceiling on any platform
 * (worker-memory.ts), and replace a worker that stays large after a job.
 */
export interface JobPort {
  onJob<Job>(handler: (job: Job) => void): void;
  post(message: object): void;
}

function connected(): JobPort | undefined {
  if (typeof process.send !== 'function') return undefined;
  // The parent went away (killed, crashed): a worker has nobody to answer, so it ends too.
  process.on('disconnect', () => process.exit(0));
  return {
    onJob: (handler) => process.on('message', handler as (message: unknown) => void),
    post: (message) => process.send!({ ...message, rss: process.memoryUsage.rss() }),
  };
}

/** Undefined when this module was loaded outside a worker process (e.g. by a test). */
export const jobPort: JobPort | undefined = connected();
